import type { webhooksV1 } from '@atelier/contracts';
import type { CallerPolicy } from '@atelier/grpc';

/** Who may call what (callers are the service identities of their certificates): the gateway only. */
export const webhooksCallerPolicy: CallerPolicy<typeof webhooksV1.WebhooksServiceService> = {
  gateway: 'all',
};

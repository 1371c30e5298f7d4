import type { communityV1 } from '@atelier/contracts';
import type { CallerPolicy } from '@atelier/grpc';

/** Who may call what (callers are the service identities of their certificates): the gateway only. */
export const communityCallerPolicy: CallerPolicy<typeof communityV1.CommunityServiceService> = {
  gateway: 'all',
};

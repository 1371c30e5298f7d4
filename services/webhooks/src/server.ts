import { loadDescriptorSet, webhooksV1 } from '@atelier/contracts';
import { registerService, startGrpcServer, type GrpcServerHandle, type GrpcServingOptions } from '@atelier/grpc';
import { webhooksCallerPolicy } from './rpc/caller-policy.js';
import { createEndpoint } from './rpc/create-endpoint.js';
import { deleteEndpoint } from './rpc/delete-endpoint.js';
import { listDeliveries } from './rpc/list-deliveries.js';
import { listEndpoints } from './rpc/list-endpoints.js';
import { replayDelivery } from './rpc/replay-delivery.js';
import { getAccountDeletion } from './rpc/get-account-deletion.js';
import type { WebhooksContext } from './webhooks-context.js';

export const WEBHOOKS_SERVICE_NAME = 'atelier.webhooks.v1.WebhooksService';

/** Serves atelier.webhooks.v1.WebhooksService over mutual TLS, with health (and reflection when enabled). */
export function startWebhooksServer(context: WebhooksContext, options: GrpcServingOptions): Promise<GrpcServerHandle> {
  const handlers = {
    createEndpoint: createEndpoint(context),
    listEndpoints: listEndpoints(context),
    deleteEndpoint: deleteEndpoint(context),
    listDeliveries: listDeliveries(context),
    replayDelivery: replayDelivery(context),
    getAccountDeletion: getAccountDeletion(context),
  };
  return startGrpcServer({
    ...options,
    logger: context.logger,
    descriptorSet: loadDescriptorSet(),
    services: [registerService(WEBHOOKS_SERVICE_NAME, webhooksV1.WebhooksServiceService, handlers, context.logger, webhooksCallerPolicy)],
  });
}

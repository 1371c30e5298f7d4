import type { webhooksV1 } from '@atelier/contracts';
import { NotFoundError } from '@atelier/errors';
import type { Handler } from '@atelier/grpc';
import { requireUserId, requireUuid } from '@atelier/validation';
import { deleteUserEndpoint } from '../db/endpoint-sql.js';
import type { WebhooksContext } from '../webhooks-context.js';

type DeleteEndpoint = Handler<typeof webhooksV1.WebhooksServiceService.deleteEndpoint>;

/** Deletes an endpoint of the caller, with its deliveries: nothing more is sent to it. */
export function deleteEndpoint({ pool, logger }: WebhooksContext): DeleteEndpoint {
  return async (request) => {
    const userId = requireUserId(request.userId, 'user_id');
    const endpointId = requireUuid(request.endpointId, 'endpoint_id');
    if (!(await deleteUserEndpoint(pool, userId, endpointId))) throw new NotFoundError('webhook endpoint');
    logger.info({ endpointId, userId }, 'webhook endpoint deleted');
    return {};
  };
}

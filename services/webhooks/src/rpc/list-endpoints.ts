import type { webhooksV1 } from '@atelier/contracts';
import type { Handler } from '@atelier/grpc';
import { requireUserId } from '@atelier/validation';
import { selectUserEndpoints } from '../db/endpoint-sql.js';
import type { WebhooksContext } from '../webhooks-context.js';
import { toEndpointMessage } from './webhook-mapper.js';

type ListEndpoints = Handler<typeof webhooksV1.WebhooksServiceService.listEndpoints>;

/** The caller's endpoints, newest first; at most the per-user limit, so one page. */
export function listEndpoints({ pool }: WebhooksContext): ListEndpoints {
  return async (request) => {
    const rows = await selectUserEndpoints(pool, requireUserId(request.userId, 'user_id'));
    return { endpoints: rows.map(toEndpointMessage) };
  };
}

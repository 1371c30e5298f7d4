import type { webhooksV1 } from '@atelier/contracts';
import { decodeListingPageToken, encodeListingPageToken, pageSize } from '@atelier/encoding';
import { NotFoundError } from '@atelier/errors';
import type { Handler } from '@atelier/grpc';
import { requireUserId, requireUuid } from '@atelier/validation';
import { selectAttempts, selectDeliveriesPage } from '../db/delivery-sql.js';
import { selectUserEndpoint } from '../db/endpoint-sql.js';
import type { WebhooksContext } from '../webhooks-context.js';
import { toDeliveryMessage } from './webhook-mapper.js';

type ListDeliveries = Handler<typeof webhooksV1.WebhooksServiceService.listDeliveries>;

const LISTING = 'webhook-deliveries';

/** An endpoint's deliveries, newest first, keyset-paginated, each with every attempt. */
export function listDeliveries({ pool }: WebhooksContext): ListDeliveries {
  return async (request) => {
    const userId = requireUserId(request.userId, 'user_id');
    const endpointId = requireUuid(request.endpointId, 'endpoint_id');
    const limit = pageSize(request.pageSize);
    const cursor = decodeListingPageToken(LISTING, request.pageToken);
    if (!(await selectUserEndpoint(pool, userId, endpointId))) throw new NotFoundError('webhook endpoint');
    const rows = await selectDeliveriesPage(pool, endpointId, cursor, limit);
    const page = rows.slice(0, limit);
    const attempts = await selectAttempts(
      pool,
      page.map((row) => row.id),
    );
    const last = page.at(-1);
    return {
      deliveries: page.map((row) =>
        toDeliveryMessage(
          row,
          attempts.filter((attempt) => attempt.delivery_id === row.id),
        ),
      ),
      nextPageToken: rows.length > limit && last ? encodeListingPageToken(LISTING, { at: last.created_at, id: last.id }) : '',
    };
  };
}

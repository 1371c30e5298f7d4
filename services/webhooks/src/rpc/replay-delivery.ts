import type { webhooksV1 } from '@atelier/contracts';
import { NotFoundError } from '@atelier/errors';
import type { Handler } from '@atelier/grpc';
import { requireUserId, requireUuid } from '@atelier/validation';
import { replayUserDelivery, selectAttempts } from '../db/delivery-sql.js';
import type { WebhooksContext } from '../webhooks-context.js';
import { toDeliveryMessage } from './webhook-mapper.js';

type ReplayDelivery = Handler<typeof webhooksV1.WebhooksServiceService.replayDelivery>;

/** Makes a delivery of the caller due now with a fresh retry schedule; same row, same webhook-id. */
export function replayDelivery({ pool, logger, onDue }: WebhooksContext): ReplayDelivery {
  return async (request) => {
    const userId = requireUserId(request.userId, 'user_id');
    const deliveryId = requireUuid(request.deliveryId, 'delivery_id');
    const row = await replayUserDelivery(pool, userId, deliveryId);
    if (!row) throw new NotFoundError('webhook delivery');
    logger.info({ deliveryId, userId }, 'webhook delivery replayed');
    onDue?.();
    return { delivery: toDeliveryMessage(row, await selectAttempts(pool, [row.id])) };
  };
}

import type { webhooksV1 } from '@atelier/contracts';
import type { Handler } from '@atelier/grpc';
import { requireUserId } from '@atelier/validation';
import { selectWebhooksAccountDeletion } from '../db/endpoint-sql.js';
import type { WebhooksContext } from '../webhooks-context.js';

type GetAccountDeletion = Handler<typeof webhooksV1.WebhooksServiceService.getAccountDeletion>;

/** Webhooks' part of deleting the user's account: not started, or done (with the endpoints removed). */
export function getAccountDeletion({ pool }: WebhooksContext): GetAccountDeletion {
  return async (request) => {
    const row = await selectWebhooksAccountDeletion(pool, requireUserId(request.userId, 'user_id'));
    return { part: { started: row !== undefined, completedAt: row?.completed_at ?? undefined, removed: row?.removed ?? 0 } };
  };
}

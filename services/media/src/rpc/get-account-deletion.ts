import type { mediaV1 } from '@atelier/contracts';
import type { Handler } from '@atelier/grpc';
import { requireUserId } from '@atelier/validation';
import { selectMediaAccountDeletion } from '../db/account-deletion-sql.js';
import type { MediaContext } from '../media-context.js';

type GetAccountDeletion = Handler<typeof mediaV1.MediaServiceService.getAccountDeletion>;

/** Media's part of deleting the user's account: not started, working, or done (with the assets removed). */
export function getAccountDeletion({ pool }: MediaContext): GetAccountDeletion {
  return async (request) => {
    const row = await selectMediaAccountDeletion(pool, requireUserId(request.userId, 'user_id'));
    return { part: { started: row !== undefined, completedAt: row?.completed_at ?? undefined, removed: row?.removed ?? 0 } };
  };
}

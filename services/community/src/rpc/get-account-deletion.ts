import type { communityV1 } from '@atelier/contracts';
import type { Handler } from '@atelier/grpc';
import { requireUserId } from '@atelier/validation';
import { selectCommunityAccountDeletion } from '../db/account-deletion-sql.js';
import type { CommunityContext } from '../community-context.js';

type GetAccountDeletion = Handler<typeof communityV1.CommunityServiceService.getAccountDeletion>;

/** Community's part of deleting the user's account: not started, working, or done (with the posts removed). */
export function getAccountDeletion({ pool }: CommunityContext): GetAccountDeletion {
  return async (request) => {
    const row = await selectCommunityAccountDeletion(pool, requireUserId(request.userId, 'user_id'));
    return { part: { started: row !== undefined, completedAt: row?.completed_at ?? undefined, removed: row?.removed ?? 0 } };
  };
}

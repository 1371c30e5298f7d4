import { getAccountDeletionPart } from '@atelier/account-deletion';
import type { communityV1 } from '@atelier/contracts';
import type { Handler } from '@atelier/grpc';
import { COMMUNITY_ACCOUNT_DELETIONS } from '../db/account-deletion-sql.js';
import type { CommunityContext } from '../community-context.js';

type GetAccountDeletion = Handler<typeof communityV1.CommunityServiceService.getAccountDeletion>;

/** Community's part of deleting the user's account: not started, working, or done (with the posts removed). */
export function getAccountDeletion({ pool }: CommunityContext): GetAccountDeletion {
  return getAccountDeletionPart(pool, COMMUNITY_ACCOUNT_DELETIONS);
}

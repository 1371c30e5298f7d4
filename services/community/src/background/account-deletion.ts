import { accountDeletionOf } from '@atelier/account-deletion';
import type { SqlPool } from '@atelier/db';
import type { Logger } from '@atelier/logging';
import { COMMUNITY_ACCOUNT_DELETIONS, deleteAuthor, POSTS_OF_AUTHOR } from '../db/account-deletion-sql.js';
import { lockAuthorForPosts } from '../db/post-usage-sql.js';

/**
 * Community's part of deleting an account, run by its AccountDeletionConsumer: from the first step
 * on the user's new posts are refused (under the author's post lock their inserts take); then
 * every post of theirs goes, then their public handle.
 */
export function communityAccountDeletion(context: { pool: SqlPool; logger: Logger }) {
  return accountDeletionOf(
    {
      service: 'community',
      table: COMMUNITY_ACCOUNT_DELETIONS,
      lockUser: lockAuthorForPosts,
      ...POSTS_OF_AUTHOR,
      batchSize: 500,
      lastly: deleteAuthor,
      remains: 'posts of the account remain (one was being changed)',
    },
    context,
  );
}

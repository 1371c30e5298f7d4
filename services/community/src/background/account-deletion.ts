import { inTransaction, type SqlPool } from '@atelier/db';
import type { AccountDeleted } from '@atelier/nats';
import { deleteAuthorAndMarkCompleted, deletePostsOfAuthor, insertCommunityAccountDeletion } from '../db/account-deletion-sql.js';

const BATCH = 500;

/**
 * Community's part of deleting an account, run by its AccountDeletionConsumer: from the first step
 * on the user's new posts are refused; then every post of theirs goes (drafts, published and
 * deleted ones alike), then their public handle. Each step finds only what is left: a run cut
 * short resumes.
 */
export function communityAccountDeletion(context: { pool: SqlPool }) {
  return async (event: AccountDeleted): Promise<void> => {
    const { pool } = context;
    const started = await inTransaction(pool, (client) => insertCommunityAccountDeletion(client, event.userId, event.deletionId));
    if (started.completed_at) return;
    while ((await deletePostsOfAuthor(pool, event.userId, BATCH)) > 0);
    if (!(await deleteAuthorAndMarkCompleted(pool, event.userId))) throw new Error('posts of the account remain; deleting again');
  };
}

import { accountDeletionsTable } from '@atelier/account-deletion';
import type { Queryable } from '@atelier/db';

/** community.account_deletions: community's part of deleting a user's account (posts removed, when done). */
export const COMMUNITY_ACCOUNT_DELETIONS = accountDeletionsTable('community');

/**
 * Deletes up to `limit` of the author's posts, drafts, published and deleted ones alike (their
 * media links go with them, ON DELETE CASCADE). Answers how many: 0 when none is left.
 */
export async function deletePostsOfAuthor(db: Queryable, userId: string, limit: number): Promise<number> {
  const { rowCount } = await db.query({
    name: 'community.delete_posts_of_author',
    text: `DELETE FROM community.posts
            WHERE id IN (SELECT id FROM community.posts WHERE author_user_id = $1 ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED)`,
    values: [userId, limit],
  });
  return rowCount ?? 0;
}

/** Finds a post of the author ($1) while one is left. */
export const POST_OF_AUTHOR_SQL = `SELECT 1 FROM community.posts WHERE author_user_id = $1`;

/** The author's public handle, which goes last: with no post left nothing shows it. */
export async function deleteAuthor(db: Queryable, userId: string): Promise<void> {
  await db.query({ name: 'community.delete_author', text: `DELETE FROM community.authors WHERE user_id = $1`, values: [userId] });
}

import { accountDeletionsTable, rowsOfUser } from '@atelier/account-deletion';
import type { Queryable } from '@atelier/db';

/** community.account_deletions: community's part of deleting a user's account (posts removed, when done). */
export const COMMUNITY_ACCOUNT_DELETIONS = accountDeletionsTable('community');

/** The author's posts, drafts, published and deleted ones alike (their media links go with them, ON DELETE CASCADE). */
export const POSTS_OF_AUTHOR = rowsOfUser({ table: 'community.posts', userColumn: 'author_user_id' });

/** The author's public handle, which goes last: with no post left nothing shows it. */
export async function deleteAuthor(db: Queryable, userId: string): Promise<void> {
  await db.query({ name: 'community.delete_author', text: `DELETE FROM community.authors WHERE user_id = $1`, values: [userId] });
}

import { lockForTransaction, type Queryable } from '@atelier/db';

/**
 * Serialises one author's post creations until the transaction ends: counting and inserting under
 * it keeps concurrent creates from overshooting the daily limit (the second waits for the first
 * to commit, then counts its row), as jobs' quota lock does.
 */
export async function lockAuthorForPosts(db: Queryable, authorUserId: string): Promise<void> {
  await lockForTransaction(db, 'community.posts', authorUserId);
}

/** Posts the author created since 00:00 UTC, whatever became of them; on posts_author_created_idx. */
export async function countPostsCreatedToday(db: Queryable, authorUserId: string): Promise<number> {
  const result = await db.query<{ n: string }>({
    name: 'community.posts_created_today',
    text: `SELECT count(*) AS n FROM community.posts
            WHERE author_user_id = $1 AND created_at >= date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'`,
    values: [authorUserId],
  });
  return Number(result.rows[0]!.n);
}

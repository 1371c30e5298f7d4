import type { Queryable } from '@atelier/db';
import { lockAuthorForPosts } from './post-usage-sql.js';

export interface CommunityAccountDeletionRow {
  user_id: string;
  deletion_id: string;
  started_at: Date;
  completed_at: Date | null;
  removed: number;
}

/**
 * Community starts its part: the row, under the author's post lock, so that a post inserted before
 * it is seen by the sweep and every one after is refused (inserts check it under the same lock:
 * accountDeletionStarted). Idempotent.
 */
export async function insertCommunityAccountDeletion(
  db: Queryable,
  userId: string,
  deletionId: string,
): Promise<CommunityAccountDeletionRow> {
  await lockAuthorForPosts(db, userId);
  const { rows } = await db.query<CommunityAccountDeletionRow>({
    name: 'community.insert_account_deletion',
    text: `INSERT INTO community.account_deletions (user_id, deletion_id) VALUES ($1, $2)
           ON CONFLICT (user_id) DO UPDATE SET user_id = EXCLUDED.user_id
           RETURNING *`,
    values: [userId, deletionId],
  });
  return rows[0]!;
}

export async function selectCommunityAccountDeletion(db: Queryable, userId: string): Promise<CommunityAccountDeletionRow | undefined> {
  const { rows } = await db.query<CommunityAccountDeletionRow>({
    name: 'community.select_account_deletion',
    text: `SELECT * FROM community.account_deletions WHERE user_id = $1`,
    values: [userId],
  });
  return rows[0];
}

export async function accountDeletionStarted(db: Queryable, userId: string): Promise<boolean> {
  return (await selectCommunityAccountDeletion(db, userId)) !== undefined;
}

/**
 * Deletes up to `limit` of the author's posts (their media links go with them, ON DELETE CASCADE)
 * and counts them on the deletion. Answers how many: 0 when none is left.
 */
export async function deletePostsOfAuthor(db: Queryable, userId: string, limit: number): Promise<number> {
  const { rows } = await db.query<{ removed: number }>({
    name: 'community.delete_posts_of_author',
    text: `WITH doomed AS (
             SELECT id FROM community.posts WHERE author_user_id = $1 ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED),
           removed AS (DELETE FROM community.posts p USING doomed WHERE p.id = doomed.id RETURNING p.id),
           counted AS (
             UPDATE community.account_deletions SET removed = removed + (SELECT count(*) FROM removed) WHERE user_id = $1)
           SELECT count(*)::int AS removed FROM removed`,
    values: [userId, limit],
  });
  return rows[0]!.removed;
}

/** The author's public handle goes last, and the part is done once no post is left. */
export async function deleteAuthorAndMarkCompleted(db: Queryable, userId: string): Promise<boolean> {
  const { rows } = await db.query<{ completed: boolean }>({
    name: 'community.complete_account_deletion',
    text: `WITH left_over AS (SELECT EXISTS (SELECT 1 FROM community.posts WHERE author_user_id = $1) AS remaining),
           author AS (DELETE FROM community.authors WHERE user_id = $1 AND NOT (SELECT remaining FROM left_over)),
           completed AS (
             UPDATE community.account_deletions SET completed_at = coalesce(completed_at, now())
              WHERE user_id = $1 AND NOT (SELECT remaining FROM left_over) RETURNING 1)
           SELECT EXISTS (SELECT 1 FROM completed) AS completed`,
    values: [userId],
  });
  return rows[0]!.completed;
}

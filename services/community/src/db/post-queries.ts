import type { Queryable } from '@atelier/db';
import type { ListingPageCursor } from '@atelier/encoding';
import type { StoredStatus } from '../domain/post-rules.js';
import { POST_COLUMNS, type PostRow } from './post-row.js';

/** Reads of community.posts with their media. Nothing here writes. */

export async function findPost(db: Queryable, postId: string): Promise<PostRow | null> {
  const result = await db.query<PostRow>({
    name: 'community.find_post',
    text: `SELECT ${POST_COLUMNS} FROM community.posts p WHERE p.id = $1`,
    values: [postId],
  });
  return result.rows[0] ?? null;
}

export async function findPostByIdempotencyKey(db: Queryable, authorUserId: string, idempotencyKey: string): Promise<PostRow | null> {
  const result = await db.query<PostRow>({
    name: 'community.find_post_by_key',
    text: `SELECT ${POST_COLUMNS} FROM community.posts p WHERE p.author_user_id = $1 AND p.idempotency_key = $2`,
    values: [authorUserId, idempotencyKey],
  });
  return result.rows[0] ?? null;
}

/**
 * One page of the feed after the cursor, in (published_at DESC, id DESC) order, with one extra
 * row to know whether another page follows. It runs on posts_feed_idx. A keyset rather than an
 * offset: posts published while a reader pages through sort before the cursor (they are newer),
 * so they can neither repeat a post nor push one out of the pages still to come. published_at
 * never changes once set (a published post cannot return to draft), so the order is stable.
 */
export async function listFeedPage(db: Queryable, cursor: ListingPageCursor | undefined, limit: number): Promise<PostRow[]> {
  const result = cursor
    ? await db.query<PostRow>({
        name: 'community.feed_after',
        text: `SELECT ${POST_COLUMNS} FROM community.posts p
                WHERE p.status = 'published' AND (p.published_at, p.id) < ($1, $2::uuid)
                ORDER BY p.published_at DESC, p.id DESC LIMIT $3`,
        values: [cursor.at, cursor.id, limit + 1],
      })
    : await db.query<PostRow>({
        name: 'community.feed_first',
        text: `SELECT ${POST_COLUMNS} FROM community.posts p
                WHERE p.status = 'published'
                ORDER BY p.published_at DESC, p.id DESC LIMIT $1`,
        values: [limit + 1],
      });
  return result.rows;
}

/**
 * One page of an author's posts of the given statuses after the cursor, in (created_at DESC,
 * id DESC) order on posts_author_created_idx, with one extra row (see listFeedPage).
 */
export async function listAuthorPostsPage(
  db: Queryable,
  authorUserId: string,
  statuses: readonly StoredStatus[],
  cursor: ListingPageCursor | undefined,
  limit: number,
): Promise<PostRow[]> {
  const result = cursor
    ? await db.query<PostRow>({
        name: 'community.author_posts_after',
        text: `SELECT ${POST_COLUMNS} FROM community.posts p
                WHERE p.author_user_id = $1 AND p.status = ANY($2::text[]) AND (p.created_at, p.id) < ($3, $4::uuid)
                ORDER BY p.created_at DESC, p.id DESC LIMIT $5`,
        values: [authorUserId, statuses, cursor.at, cursor.id, limit + 1],
      })
    : await db.query<PostRow>({
        name: 'community.author_posts_first',
        text: `SELECT ${POST_COLUMNS} FROM community.posts p
                WHERE p.author_user_id = $1 AND p.status = ANY($2::text[])
                ORDER BY p.created_at DESC, p.id DESC LIMIT $3`,
        values: [authorUserId, statuses, limit + 1],
      });
  return result.rows;
}

import { inTransaction, type Queryable, type SqlPool } from '@atelier/db';
import { insertOutboxEvents, type OutboxEvent } from '@atelier/outbox';
import type { ListingPageCursor } from '@atelier/encoding';
import type { StoredCategory, StoredStatus, WritableStatus } from '../domain/post-rules.js';
import { AUTHOR_HANDLE_OF, POST_COLUMNS, type PostRow } from './post-row.js';

/**
 * The SQL of community.posts with their media (and of the author handle a first post creates):
 * the reads, then the writes.
 *
 * This is the one module that writes posts. Each write is one statement, or one transaction whose first
 * statement is the conditional UPDATE that decides it, so two writers can never both act on the
 * same version of a post. The outbox rows a write announces (its product events) go in its
 * transaction: `announce` answers them from the post as written. A function returns null when its condition did not hold; the caller
 * reads the row to explain why. The database refuses an illegal row a second time (CHECKs).
 */

export async function selectPost(db: Queryable, postId: string): Promise<PostRow | null> {
  const result = await db.query<PostRow>({
    name: 'community.find_post',
    text: `SELECT ${POST_COLUMNS} FROM community.posts p WHERE p.id = $1`,
    values: [postId],
  });
  return result.rows[0] ?? null;
}

export async function selectPostByIdempotencyKey(db: Queryable, authorUserId: string, idempotencyKey: string): Promise<PostRow | null> {
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
export async function selectFeedPage(db: Queryable, cursor: ListingPageCursor | undefined, limit: number): Promise<PostRow[]> {
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
 * id DESC) order on posts_author_created_idx, with one extra row (see selectFeedPage).
 */
export async function selectAuthorPostsPage(
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

export interface NewPost {
  id: string;
  authorUserId: string;
  petId: string | null;
  category: StoredCategory;
  title: string;
  content: string;
  status: WritableStatus;
  generationJobId: string | null;
  idempotencyKey: string;
  requestHash: Buffer;
  /** In display order; ordinals are the positions. */
  mediaAssetIds: readonly string[];
}

/**
 * Gives the author a public handle on their first post (a separate statement: the insert's
 * select must see it). Concurrent first posts make one.
 */
export async function insertAuthorIfMissing(db: Queryable, userId: string): Promise<void> {
  await db.query({
    name: 'community.ensure_author',
    text: 'INSERT INTO community.authors (user_id) VALUES ($1) ON CONFLICT (user_id) DO NOTHING',
    values: [userId],
  });
}

/**
 * Inserts a post with its media in one statement. When the author already has a post with this
 * idempotency key — an earlier request, or a concurrent one that committed first (the insert
 * waits for it) — nothing is inserted, its media included, and null is returned: the caller
 * reads the winner. The media CTE joins on `inserted`, so it inserts only what the post insert
 * did; the foreign key is checked at the end of the statement, when the post exists.
 */
export async function insertPost(db: Queryable, post: NewPost): Promise<PostRow | null> {
  await insertAuthorIfMissing(db, post.authorUserId);
  const result = await db.query<PostRow>({
    name: 'community.insert_post',
    text: `WITH inserted AS (
             INSERT INTO community.posts
               (id, author_user_id, pet_id, category, title, content, status, generation_job_id, idempotency_key, request_hash,
                published_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7::varchar, $8, $9, $10, CASE WHEN $7::varchar = 'published' THEN now() END)
             ON CONFLICT (author_user_id, idempotency_key) DO NOTHING
             RETURNING *
           ), media AS (
             INSERT INTO community.post_media (post_id, asset_id, ordinal)
             SELECT inserted.id, m.asset_id, (m.ordinal - 1)::int
               FROM inserted, unnest($11::uuid[]) WITH ORDINALITY AS m(asset_id, ordinal)
           )
           SELECT inserted.*, $11::uuid[] AS media_asset_ids, ${AUTHOR_HANDLE_OF('inserted')} FROM inserted`,
    values: [
      post.id,
      post.authorUserId,
      post.petId,
      post.category,
      post.title,
      post.content,
      post.status,
      post.generationJobId,
      post.idempotencyKey,
      post.requestHash,
      post.mediaAssetIds,
    ],
  });
  return result.rows[0] ?? null;
}

/** A post's next state, planned from the version the author named. */
export interface PostUpdate {
  id: string;
  authorUserId: string;
  expectedVersion: number;
  title: string;
  content: string;
  category: StoredCategory;
  petId: string | null;
  status: WritableStatus;
  /** The new media list in display order; null keeps the current one. */
  mediaAssetIds: readonly string[] | null;
}

/**
 * Applies a planned update if, and only if, the post is still the author's, live, and at the
 * expected version. Writing every planned column is safe because of that condition: the plan was
 * made from exactly this version, and any other change since would have raised the version. Of
 * concurrent updaters of one version the first takes the row lock and wins; the others, once it
 * commits, re-check the condition against the new version and update nothing.
 *
 * published_at is kept once set and set on the first publication. The media list, when
 * replaced, is rewritten in the same transaction, after the row lock is taken: every media
 * writer updates the post first, so they are serialised by it.
 */
export async function updatePostAndMedia(
  pool: SqlPool,
  update: PostUpdate,
  announce: (post: PostRow) => readonly OutboxEvent[],
): Promise<PostRow | null> {
  return inTransaction(pool, async (client) => {
    const result = await client.query<PostRow>({
      name: 'community.update_post',
      text: `UPDATE community.posts p
                SET title = $4, content = $5, category = $6, pet_id = $7, status = $8::varchar,
                    published_at = CASE WHEN $8::varchar = 'published' THEN COALESCE(p.published_at, now()) END,
                    version = p.version + 1,
                    updated_at = now()
              WHERE p.id = $1 AND p.author_user_id = $2 AND p.version = $3 AND p.status <> 'deleted'
              RETURNING ${POST_COLUMNS}`,
      values: [
        update.id,
        update.authorUserId,
        update.expectedVersion,
        update.title,
        update.content,
        update.category,
        update.petId,
        update.status,
      ],
    });
    const updated = result.rows[0];
    if (!updated) return null;
    const row = update.mediaAssetIds === null ? updated : { ...updated, media_asset_ids: [...update.mediaAssetIds] };
    if (update.mediaAssetIds !== null) {
      await client.query({
        name: 'community.clear_post_media',
        text: 'DELETE FROM community.post_media WHERE post_id = $1',
        values: [row.id],
      });
      await client.query({
        name: 'community.insert_post_media',
        text: `INSERT INTO community.post_media (post_id, asset_id, ordinal)
               SELECT $1, m.asset_id, (m.ordinal - 1)::int FROM unnest($2::uuid[]) WITH ORDINALITY AS m(asset_id, ordinal)`,
        values: [row.id, update.mediaAssetIds],
      });
    }
    await insertOutboxEvents(client, 'community', announce(row));
    return row;
  });
}

/**
 * Live → deleted, once, for the author only. A second delete updates nothing and returns null;
 * the caller reads the row to tell "already deleted" (answered with the post) from "not yours".
 * The version rises like for any other change, so a stale update cannot revive anything.
 */
export async function updatePostDeleted(db: Queryable, postId: string, authorUserId: string): Promise<PostRow | null> {
  const result = await db.query<PostRow>({
    name: 'community.soft_delete_post',
    text: `UPDATE community.posts p
              SET status = 'deleted', deleted_at = now(), updated_at = now(), version = p.version + 1
            WHERE p.id = $1 AND p.author_user_id = $2 AND p.status <> 'deleted'
            RETURNING ${POST_COLUMNS}`,
    values: [postId, authorUserId],
  });
  return result.rows[0] ?? null;
}

import type { SqlPool } from '@atelier/db';
import { AlreadyExistsError, InternalError } from '@atelier/errors';
import { findPostByIdempotencyKey } from '../db/post-queries.js';
import type { PostRow } from '../db/post-row.js';
import { insertPost, type NewPost } from '../db/post-writes.js';

export interface CreatedPost {
  row: PostRow;
  created: boolean;
}

/** Same key and same command: the existing post (a replay). Same key, another command: refused. */
export function replayOrRefuse(existing: PostRow, requestHash: Buffer): CreatedPost {
  if (!existing.request_hash.equals(requestHash)) {
    throw new AlreadyExistsError(
      'IDEMPOTENCY_PAYLOAD_MISMATCH',
      'this idempotency key was already used for a different post; use a new key for a new post',
    );
  }
  return { row: existing, created: false };
}

/** Answers a repeated key from the stored post alone, before any peer is asked. */
export async function findReplay(pool: SqlPool, authorUserId: string, idempotencyKey: string, requestHash: Buffer) {
  const earlier = await findPostByIdempotencyKey(pool, authorUserId, idempotencyKey);
  return earlier ? replayOrRefuse(earlier, requestHash) : null;
}

/**
 * Inserts the post, or — when a concurrent request with the same key committed first (the
 * insert waited for it, then did nothing) — answers with that request's post, as a replay.
 */
export async function insertOrReplay(pool: SqlPool, post: NewPost): Promise<CreatedPost> {
  const inserted = await insertPost(pool, post);
  if (inserted) return { row: inserted, created: true };
  const winner = await findPostByIdempotencyKey(pool, post.authorUserId, post.idempotencyKey);
  // Posts are deleted softly, so the row that won the key is still there.
  if (!winner) throw new InternalError('the post holding this idempotency key vanished');
  return replayOrRefuse(winner, post.requestHash);
}

import { accountDeletionStarted } from '@atelier/account-deletion';
import { inTransaction, type SqlPool } from '@atelier/db';
import { AccountDeletedError, AlreadyExistsError, InternalError } from '@atelier/errors';
import { insertOutboxEvents, type OutboxEvent } from '@atelier/outbox';
import { insertPost, selectPostByIdempotencyKey, type NewPost } from '../db/post-sql.js';
import type { PostRow } from '../db/post-row.js';
import { lockAuthorForPosts, countPostsCreatedToday } from '../db/post-usage-sql.js';
import { COMMUNITY_ACCOUNT_DELETIONS } from '../db/account-deletion-sql.js';
import { checkPostLimits, type PostLimits } from '../domain/post-limits.js';

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
  const earlier = await selectPostByIdempotencyKey(pool, authorUserId, idempotencyKey);
  return earlier ? replayOrRefuse(earlier, requestHash) : null;
}

/**
 * Inserts the post, or — when a request with the same key committed first — answers with that
 * request's post, as a replay. Under the author's lock, in one transaction: the replay is looked
 * for, the day's posts counted against the limit, and the post inserted, so concurrent creates
 * never overshoot the limit and a replay is never refused by it. The outbox rows `announce` answers
 * for the inserted post commit with it; a replay announces nothing.
 */
export async function insertOrReplay(
  pool: SqlPool,
  post: NewPost,
  limits: PostLimits,
  announce: (post: PostRow) => readonly OutboxEvent[],
): Promise<CreatedPost> {
  return inTransaction(pool, async (client) => {
    await lockAuthorForPosts(client, post.authorUserId);
    if (await accountDeletionStarted(client, COMMUNITY_ACCOUNT_DELETIONS, post.authorUserId)) throw new AccountDeletedError();
    const earlier = await selectPostByIdempotencyKey(client, post.authorUserId, post.idempotencyKey);
    if (earlier) return replayOrRefuse(earlier, post.requestHash);
    checkPostLimits(await countPostsCreatedToday(client, post.authorUserId), limits, new Date());
    const inserted = await insertPost(client, post);
    if (inserted) {
      await insertOutboxEvents(client, 'community', announce(inserted));
      return { row: inserted, created: true };
    }
    // Unreachable while every insert takes the lock; kept for a writer that does not.
    const winner = await selectPostByIdempotencyKey(client, post.authorUserId, post.idempotencyKey);
    // Posts are deleted softly, so the row that won the key is still there.
    if (!winner) throw new InternalError('the post holding this idempotency key vanished');
    return replayOrRefuse(winner, post.requestHash);
  });
}

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { communityV1 } from '@atelier/contracts';
import { ErrorCode, type AppError } from '@atelier/errors';
import { startLoneCommunity, type LoneCommunity } from './test-support/lone-community.js';

const LIMIT = 4;
let h: LoneCommunity;

beforeAll(async () => {
  h = await startLoneCommunity({ POSTS_DAILY_LIMIT: LIMIT });
}, 60_000);

afterAll(async () => {
  await h?.stop();
});

const post = (authorUserId: string, idempotencyKey: string) =>
  h.community.createPost(
    communityV1.CreatePostRequest.fromPartial({
      authorUserId,
      idempotencyKey,
      category: communityV1.PostCategory.GENERAL,
      title: 'Another one',
      content: 'of my cat',
    }),
  );

describe('community limits - posts per day', () => {
  it('admits exactly the daily limit out of 16 concurrent creates, and refuses the rest with a reason and the seconds to midnight', async () => {
    const author = `limits-posts-${process.pid}`;
    const outcomes = await Promise.allSettled(Array.from({ length: 16 }, (_, i) => post(author, `key-${i}`)));
    const admitted = outcomes.filter((o) => o.status === 'fulfilled').map((o) => o.value);
    const refused = outcomes.filter((o) => o.status === 'rejected').map((o) => o.reason as AppError);
    expect(admitted).toHaveLength(LIMIT);
    expect(refused).toHaveLength(16 - LIMIT);
    const now = new Date();
    const toMidnight = (Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1) - now.getTime()) / 1000;
    for (const error of refused) {
      expect(error).toMatchObject({ code: ErrorCode.RESOURCE_EXHAUSTED, reason: 'POST_QUOTA_EXCEEDED' });
      expect(error.message).toMatch(/daily limit of 4 posts/);
      expect(error.retryAfterSeconds).toBeGreaterThan(toMidnight - 30);
      expect(error.retryAfterSeconds).toBeLessThanOrEqual(Math.ceil(toMidnight) + 1);
    }
    const { rows } = await h.app.context.pool.query('SELECT count(*) AS n FROM community.posts WHERE author_user_id = $1', [author]);
    expect(Number(rows[0].n)).toBe(LIMIT);

    // A replay of an admitted create is still answered (created=false), not refused by the limit.
    const first = admitted[0]!.post!;
    const replayKey = outcomes.findIndex((o) => o.status === 'fulfilled');
    await expect(post(author, `key-${replayKey}`)).resolves.toMatchObject({ created: false, post: { id: first.id } });
    // Deleting a post does not give it back.
    await h.community.deletePost({ postId: first.id, authorUserId: author });
    await expect(post(author, 'key-after-delete')).rejects.toMatchObject({ reason: 'POST_QUOTA_EXCEEDED' });
  });

  it('counts each author on their own', async () => {
    await expect(post(`limits-other-${process.pid}`, 'key-0')).resolves.toMatchObject({ created: true });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { communityV1 } from '@atelier/contracts';
import { UserRefKey } from '@atelier/outbox';
import { testProductEventsKey } from '@atelier/testing';
import { refusal, startCommunityHarness, succeededJob, type CommunityHarness } from './test-support/community-harness.js';

// The product events of community commit with the write they announce or not at all:
// creation_draft_created once per one-tap draft (a replay, or a concurrent tap, makes none),
// creation_post_published once per ai_creation post (a later edit makes none; a refused write none).

const { PostCategory, PostStatus } = communityV1;
let h: CommunityHarness;

beforeAll(async () => {
  h = await startCommunityHarness();
}, 120_000);

afterAll(async () => {
  await h?.stop();
});

let seq = 0;
const newUser = () => `events-${process.pid}-${++seq}`;
const newKey = () => `events-key-${++seq}`;

async function eventsOf(postId: string) {
  const { rows } = await h.db.query<{
    event_type: string;
    dedupe_key: string;
    payload: { props: Record<string, unknown> } & Record<string, unknown>;
  }>(`SELECT event_type, dedupe_key, payload FROM community.outbox WHERE aggregate_id = $1 ORDER BY id`, [postId]);
  return rows;
}

const publish = (postId: string, authorUserId: string, expectedVersion: number, extra: Partial<communityV1.UpdatePostRequest> = {}) =>
  h.community.updatePost(
    communityV1.UpdatePostRequest.fromPartial({ postId, authorUserId, expectedVersion, status: PostStatus.PUBLISHED, ...extra }),
  );

describe('community product events - the one-tap draft and its publication', () => {
  it('a draft writes creation_draft_created once (taps again make none), its publication creation_post_published once (edits make none)', async () => {
    const author = newUser();
    const job = await succeededJob(h, author, newKey());
    const taps = await Promise.all(
      Array.from({ length: 3 }, () => h.community.createDraftFromJob({ authorUserId: author, jobId: job.id })),
    );
    const draft = taps.find((tap) => tap.created)!.post!;
    await h.community.createDraftFromJob({ authorUserId: author, jobId: job.id, title: 'a title that is never in an event' });
    const [created] = await eventsOf(draft.id);
    expect(await eventsOf(draft.id)).toHaveLength(1);
    expect(created).toEqual({
      event_type: 'creation_draft_created',
      dedupe_key: `creation_draft_created:${draft.id}`,
      payload: {
        eventId: `creation_draft_created:${draft.id}`,
        eventName: 'creation_draft_created',
        occurredAt: draft.createdAt!.toISOString(),
        userRef: new UserRefKey(testProductEventsKey()).refOf(author),
        props: { post_id: draft.id, job_id: job.id, asset_id: job.outputAssetId, has_pet: false },
      },
    });

    // A stale version is refused and announces nothing; the publication announces once.
    await expect(publish(draft.id, author, 7)).rejects.toMatchObject({ reason: 'VERSION_CONFLICT' });
    expect(await eventsOf(draft.id)).toHaveLength(1);
    const { post: published } = await publish(draft.id, author, 1, { title: 'Mittens in watercolour' });
    await h.community.updatePost(
      communityV1.UpdatePostRequest.fromPartial({ postId: draft.id, authorUserId: author, expectedVersion: 2, content: 'edited later' }),
    );
    const events = await eventsOf(draft.id);
    expect(events.map((event) => event.event_type)).toEqual(['creation_draft_created', 'creation_post_published']);
    expect(events[1]!.payload).toEqual({
      eventId: `creation_post_published:${draft.id}`,
      eventName: 'creation_post_published',
      occurredAt: published!.publishedAt!.toISOString(),
      userRef: created!.payload.userRef,
      props: {
        post_id: draft.id,
        job_id: job.id,
        category: 'ai_creation',
        media_count: 1,
        has_pet: false,
        from_draft: true,
        since_created_ms: published!.publishedAt!.getTime() - draft.createdAt!.getTime(),
      },
    });
    expect(JSON.stringify(events)).not.toMatch(new RegExp(`${author}|Mittens|edited|never in an event|http`));
  });

  it('a draft deleted and tapped again is a new draft: a new event of the new post', async () => {
    const author = newUser();
    const job = await succeededJob(h, author, newKey());
    const first = (await h.community.createDraftFromJob({ authorUserId: author, jobId: job.id })).post!;
    await h.community.deletePost({ postId: first.id, authorUserId: author });
    const second = (await h.community.createDraftFromJob({ authorUserId: author, jobId: job.id })).post!;
    expect(second.id).not.toBe(first.id);
    expect((await eventsOf(first.id)).map((event) => event.event_type)).toEqual(['creation_draft_created']);
    expect((await eventsOf(second.id)).map((event) => event.event_type)).toEqual(['creation_draft_created']);
  });

  it("a refused tap (another user's job) writes nothing", async () => {
    const job = await succeededJob(h, newUser(), newKey());
    const stranger = newUser();
    expect(await refusal(h.community.createDraftFromJob({ authorUserId: stranger, jobId: job.id }))).toMatchObject({
      reason: 'JOB_NOT_FOUND',
    });
    const { rows } = await h.db.query(`SELECT count(*)::int AS n FROM community.outbox WHERE payload->'props'->>'job_id' = $1`, [job.id]);
    expect(rows[0].n).toBe(0);
  });
});

describe('community product events - posts created published', () => {
  it('an ai_creation post created published writes creation_post_published once, its replay none; a general post none', async () => {
    const author = newUser();
    const job = await succeededJob(h, author, newKey());
    const request = communityV1.CreatePostRequest.fromPartial({
      authorUserId: author,
      idempotencyKey: newKey(),
      category: PostCategory.AI_CREATION,
      status: PostStatus.PUBLISHED,
      title: 'Straight to the feed',
      generationJobId: job.id,
      mediaAssetIds: [job.outputAssetId!],
    });
    const { post } = await h.community.createPost(request);
    expect(await h.community.createPost(request)).toMatchObject({ created: false, post: { id: post!.id } });
    const events = await eventsOf(post!.id);
    expect(events.map((event) => event.event_type)).toEqual(['creation_post_published']);
    expect(events[0]!.payload.props).toMatchObject({ post_id: post!.id, job_id: job.id, from_draft: false, since_created_ms: 0 });

    const general = await h.community.createPost(
      communityV1.CreatePostRequest.fromPartial({
        authorUserId: author,
        idempotencyKey: newKey(),
        category: PostCategory.GENERAL,
        status: PostStatus.PUBLISHED,
        title: 'Not a creation',
      }),
    );
    expect(await eventsOf(general.post!.id)).toEqual([]);
  });
});

import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { communityV1, jobsV1, mediaV1 } from '@atelier/contracts';
import { uuidv7 } from '@atelier/db';
import { ErrorCode } from '@atelier/errors';
import { createLogger } from '@atelier/logging';
import {
  checkHealth,
  createTestDatabase,
  listReflectedServices,
  testClient,
  testIdentityEnv,
  testProductEventsKey,
  testSecurity,
} from '@atelier/testing';
import { startCommunityApp } from './community-app.js';
import { COMMUNITY_SERVICE_NAME } from './server.js';
import {
  putOutputImage,
  queuedStylizeJob,
  refusal,
  startCommunityHarness,
  succeededJob,
  uploadImage,
  type CommunityHarness,
} from './test-support/community-harness.js';
import { communityTestConfig } from './test-support/lone-community.js';

const { PostCategory, PostStatus } = communityV1;

let h: CommunityHarness;

beforeAll(async () => {
  h = await startCommunityHarness();
}, 120_000);

afterAll(async () => {
  await h?.stop();
});

let seq = 0;
const newUser = (name = 'user') => `${name}-${process.pid}-${++seq}`;
const newKey = () => `key-${++seq}`;
const UNKNOWN_ID = '019a0000-0000-7000-8000-0000000000ff';

const postRequest = (authorUserId: string, overrides: Partial<communityV1.CreatePostRequest> = {}) =>
  communityV1.CreatePostRequest.fromPartial({
    authorUserId,
    idempotencyKey: newKey(),
    category: PostCategory.GENERAL,
    title: 'Look at my cat',
    content: 'She sat on the keyboard again.',
    ...overrides,
  });

async function countPosts(authorUserId?: string): Promise<number> {
  const { rows } = authorUserId
    ? await h.db.query('SELECT count(*) AS n FROM community.posts WHERE author_user_id = $1', [authorUserId])
    : await h.db.query('SELECT count(*) AS n FROM community.posts');
  return Number(rows[0].n);
}

async function publishedPost(authorUserId: string, title = 'Published'): Promise<communityV1.Post> {
  return (await h.community.createPost(postRequest(authorUserId, { title, status: PostStatus.PUBLISHED }))).post!;
}

async function readFeed(pageSize = 100): Promise<communityV1.Post[]> {
  const posts: communityV1.Post[] = [];
  let pageToken = '';
  do {
    const page = await h.community.listFeed({ pageSize, pageToken });
    posts.push(...page.posts);
    pageToken = page.nextPageToken;
  } while (pageToken);
  return posts;
}

describe('community - CreatePost', () => {
  it('creates a draft with its media in display order, visible to its author only', async () => {
    const author = newUser('alice');
    const [first, second] = [await uploadImage(h.media, author), await uploadImage(h.media, author)];
    const { post, created } = await h.community.createPost(postRequest(author, { mediaAssetIds: [second!, first!] }));
    expect(created).toBe(true);
    expect(post).toMatchObject({
      authorUserId: author,
      category: PostCategory.GENERAL,
      title: 'Look at my cat',
      status: PostStatus.DRAFT,
      version: 1,
      media: [
        { assetId: second, ordinal: 0 },
        { assetId: first, ordinal: 1 },
      ],
      publishedAt: undefined,
      generationJobId: undefined,
    });
    expect(post!.createdAt).toBeInstanceOf(Date);
    expect((await h.community.getPost({ postId: post!.id, callerUserId: author })).post).toEqual(post);
    const { rows } = await h.db.query('SELECT octet_length(request_hash) AS n, idempotency_key FROM community.posts WHERE id = $1', [
      post!.id,
    ]);
    expect(rows[0].n).toBe(32);
  });

  it('creates a published post with published_at, and it appears in the feed', async () => {
    const author = newUser('pub');
    const post = await publishedPost(author, 'Straight to the feed');
    expect(post.status).toBe(PostStatus.PUBLISHED);
    expect(post.publishedAt!.getTime()).toBe(post.createdAt!.getTime());
    expect((await readFeed()).map((p) => p.id)).toContain(post.id);
    expect((await h.community.getPost({ postId: post.id, callerUserId: newUser('stranger') })).post!.id).toBe(post.id);
  });

  it('replays the same post for the same key and command, even with cosmetic differences and after its image is gone', async () => {
    const author = newUser('replay');
    const image = await uploadImage(h.media, author);
    const request = postRequest(author, { mediaAssetIds: [image], status: PostStatus.DRAFT });
    const first = await h.community.createPost(request);
    // Replays are answered before the peers are asked: an image deleted since does not matter.
    await h.mediaAsWorker.deleteAsset({ assetId: image, ownerUserId: author });
    const again = await h.community.createPost({
      ...request,
      title: `  ${request.title}\n`,
      idempotencyKey: ` ${request.idempotencyKey} `,
      status: PostStatus.UNSPECIFIED,
    });
    expect(again.created).toBe(false);
    expect(again.post).toEqual(first.post);
    expect(await countPosts(author)).toBe(1);
  });

  it('refuses a reused key with another payload, writing nothing', async () => {
    const author = newUser('mismatch');
    const request = postRequest(author);
    await h.community.createPost(request);
    expect(await refusal(h.community.createPost({ ...request, title: 'Something else entirely' }))).toMatchObject({
      code: ErrorCode.ALREADY_EXISTS,
      reason: 'IDEMPOTENCY_PAYLOAD_MISMATCH',
    });
    expect(await countPosts(author)).toBe(1);
  });

  it('makes exactly one post of 20 concurrent identical creates', async () => {
    const author = newUser('racer');
    const image = await uploadImage(h.media, author);
    const request = postRequest(author, { mediaAssetIds: [image], status: PostStatus.PUBLISHED });
    const results = await Promise.all(Array.from({ length: 20 }, () => h.community.createPost(request)));
    expect(new Set(results.map((r) => r.post!.id)).size).toBe(1);
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(await countPosts(author)).toBe(1);
    const { rows } = await h.db.query(
      'SELECT count(*) AS n FROM community.post_media m JOIN community.posts p ON p.id = m.post_id WHERE p.author_user_id = $1',
      [author],
    );
    expect(Number(rows[0].n)).toBe(1);
  });
});

describe('community - media rules', () => {
  it("answers NOT_FOUND for another user's asset, as for one that does not exist", async () => {
    const author = newUser('owner');
    const foreign = await uploadImage(h.media, newUser('other'));
    for (const assetId of [foreign, UNKNOWN_ID]) {
      expect(await refusal(h.community.createPost(postRequest(author, { mediaAssetIds: [assetId] })))).toMatchObject({
        code: ErrorCode.NOT_FOUND,
        reason: 'MEDIA_NOT_FOUND',
      });
    }
    expect(await countPosts(author)).toBe(0);
  });

  it('refuses an asset still uploading, and one uploaded for another purpose', async () => {
    const author = newUser('purpose');
    const ready = await uploadImage(h.media, author);
    const uploading = await uploadImage(h.media, author, { complete: false });
    expect(await refusal(h.community.createPost(postRequest(author, { mediaAssetIds: [ready, uploading] })))).toMatchObject({
      code: ErrorCode.FAILED_PRECONDITION,
      reason: 'MEDIA_NOT_READY',
    });
    const input = await uploadImage(h.media, author, { purpose: mediaV1.AssetPurpose.AI_INPUT });
    expect(await refusal(h.community.createPost(postRequest(author, { mediaAssetIds: [input] })))).toMatchObject({
      code: ErrorCode.FAILED_PRECONDITION,
      reason: 'MEDIA_WRONG_PURPOSE',
    });
    const generated = await putOutputImage(h.mediaAsWorker, author, `loose-output-${seq}`);
    expect((await h.community.createPost(postRequest(author, { mediaAssetIds: [ready, generated.asset.id] }))).post!.media).toHaveLength(2);
    expect(await countPosts(author)).toBe(1);
  });

  it('answers UNAVAILABLE when media cannot be reached, writing nothing', async () => {
    const logger = createLogger({ service: 'community-test', level: 'silent' });
    const cut = await startCommunityApp(
      await communityTestConfig(h.database.url, { MEDIA_ADDR: '127.0.0.1:1', JOBS_ADDR: '127.0.0.1:1' }),
      logger,
      { host: '127.0.0.1' },
    );
    const client = await testClient(communityV1.CommunityServiceClient, `127.0.0.1:${cut.server.port}`, 'gateway');
    try {
      const author = newUser('offline');
      expect(await refusal(client.createPost(postRequest(author, { mediaAssetIds: [UNKNOWN_ID] })))).toMatchObject({
        code: ErrorCode.UNAVAILABLE,
      });
      expect(await countPosts(author)).toBe(0);
    } finally {
      client.close();
      await cut.stop(100);
    }
  });
});

describe('community - generation job rules', () => {
  let author: string;
  let job: jobsV1.Job;

  beforeAll(async () => {
    author = newUser('creator');
    job = await succeededJob(h, author, newKey());
  });

  it('accepts an ai_creation post of the author’s succeeded job with its output among the media', async () => {
    const extra = await uploadImage(h.media, author);
    const { post } = await h.community.createPost(
      postRequest(author, {
        category: PostCategory.AI_CREATION,
        generationJobId: job.id,
        mediaAssetIds: [extra, job.outputAssetId!],
        status: PostStatus.PUBLISHED,
      }),
    );
    expect(post).toMatchObject({ category: PostCategory.AI_CREATION, generationJobId: job.id, status: PostStatus.PUBLISHED });
  });

  it('requires a generation job for ai_creation', async () => {
    expect(
      await refusal(
        h.community.createPost(postRequest(author, { category: PostCategory.AI_CREATION, mediaAssetIds: [job.outputAssetId!] })),
      ),
    ).toMatchObject({ code: ErrorCode.FAILED_PRECONDITION, reason: 'GENERATION_JOB_REQUIRED' });
  });

  it("refuses another user's job, an unfinished job, and a job whose output is not attached", async () => {
    const before = await countPosts();
    const stranger = newUser('stranger');
    const strangersImage = await uploadImage(h.media, stranger);
    expect(
      await refusal(h.community.createPost(postRequest(stranger, { generationJobId: job.id, mediaAssetIds: [strangersImage] }))),
    ).toMatchObject({ code: ErrorCode.FAILED_PRECONDITION, reason: 'GENERATION_JOB_NOT_FOUND' });
    expect(await refusal(h.community.createPost(postRequest(author, { generationJobId: UNKNOWN_ID })))).toMatchObject({
      reason: 'GENERATION_JOB_NOT_FOUND',
    });

    const queued = await queuedStylizeJob(h, author, newKey());
    expect(queued.status).toBe(jobsV1.JobStatus.QUEUED);
    expect(
      await refusal(h.community.createPost(postRequest(author, { category: PostCategory.AI_CREATION, generationJobId: queued.id }))),
    ).toMatchObject({ code: ErrorCode.FAILED_PRECONDITION, reason: 'GENERATION_JOB_NOT_SUCCEEDED' });

    const other = await uploadImage(h.media, author);
    expect(
      await refusal(
        h.community.createPost(
          postRequest(author, { category: PostCategory.AI_CREATION, generationJobId: job.id, mediaAssetIds: [other] }),
        ),
      ),
    ).toMatchObject({ code: ErrorCode.FAILED_PRECONDITION, reason: 'GENERATION_OUTPUT_NOT_ATTACHED' });
    expect(await countPosts()).toBe(before);
  });
});

describe('community - CreateDraftFromJob', () => {
  it('makes an ai_creation draft of the job with its output as the only image, once per job', async () => {
    const author = newUser('oneTap');
    const job = await succeededJob(h, author, newKey());
    const first = await h.community.createDraftFromJob({ authorUserId: author, jobId: job.id });
    expect(first.created).toBe(true);
    expect(first.post).toMatchObject({
      authorUserId: author,
      category: PostCategory.AI_CREATION,
      status: PostStatus.DRAFT,
      generationJobId: job.id,
      media: [{ assetId: job.outputAssetId, ordinal: 0 }],
      title: `My ${job.snapshot!.styleCode!.replaceAll('-', ' ')} creation`,
      content: '',
      version: 1,
    });
    const again = await h.community.createDraftFromJob({ authorUserId: author, jobId: job.id, title: 'Another title' });
    expect(again).toEqual({ post: first.post, created: false });
    expect(await countPosts(author)).toBe(1);
  });

  it('makes one draft of concurrent taps, with the given title', async () => {
    const author = newUser('taps');
    const job = await succeededJob(h, author, newKey());
    const results = await Promise.all(
      Array.from({ length: 5 }, () =>
        h.community.createDraftFromJob({ authorUserId: author, jobId: job.id, title: ' Mittens, stylised ' }),
      ),
    );
    expect(new Set(results.map((r) => r.post!.id)).size).toBe(1);
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(results[0]!.post!.title).toBe('Mittens, stylised');
  });

  it('makes a new draft once the draft was deleted; the deleted one stays deleted, and each new draft is replayed until it is deleted', async () => {
    const author = newUser('redraft');
    const job = await succeededJob(h, author, newKey());
    const tap = () => h.community.createDraftFromJob({ authorUserId: author, jobId: job.id });
    const first = (await tap()).post!;
    await h.community.deletePost({ postId: first.id, authorUserId: author });

    const second = await tap();
    expect(second.created).toBe(true);
    expect(second.post).toMatchObject({
      status: PostStatus.DRAFT,
      category: PostCategory.AI_CREATION,
      generationJobId: job.id,
      media: [{ assetId: job.outputAssetId, ordinal: 0 }],
      version: 1,
    });
    expect(second.post!.id).not.toBe(first.id);
    expect(await tap()).toEqual({ post: second.post, created: false });
    expect(await refusal(h.community.getPost({ postId: first.id, callerUserId: author }))).toMatchObject({ code: ErrorCode.NOT_FOUND });
    const { rows } = await h.db.query('SELECT status FROM community.posts WHERE id = $1', [first.id]);
    expect(rows[0]).toEqual({ status: 'deleted' });

    // Again, concurrent taps after a deletion: one new draft.
    await h.community.deletePost({ postId: second.post!.id, authorUserId: author });
    const taps = await Promise.all(Array.from({ length: 5 }, tap));
    expect(taps.filter((t) => t.created)).toHaveLength(1);
    expect(new Set(taps.map((t) => t.post!.id)).size).toBe(1);
    expect(taps[0]!.post!.id).not.toBe(second.post!.id);
    const mine = await h.community.listMyPosts({ authorUserId: author, status: 0, pageSize: 0, pageToken: '' });
    expect(mine.posts.map((p) => p.id)).toEqual([taps[0]!.post!.id]);
    expect(await countPosts(author)).toBe(3);
  });

  it('answers the post the draft was published as while it lives, and a new draft after it was deleted', async () => {
    const author = newUser('republish');
    const job = await succeededJob(h, author, newKey());
    const tap = () => h.community.createDraftFromJob({ authorUserId: author, jobId: job.id });
    const draft = (await tap()).post!;
    const { post: published } = await h.community.updatePost(
      communityV1.UpdatePostRequest.fromPartial({
        postId: draft.id,
        authorUserId: author,
        expectedVersion: 1,
        status: PostStatus.PUBLISHED,
      }),
    );
    expect(await tap()).toEqual({ post: published, created: false });
    await h.community.deletePost({ postId: draft.id, authorUserId: author });
    expect(await tap()).toMatchObject({ created: true, post: { status: PostStatus.DRAFT, generationJobId: job.id } });
  });

  it("refuses another user's job and an unfinished one, writing nothing", async () => {
    const author = newUser('draftOwner');
    const job = await succeededJob(h, author, newKey());
    const thief = newUser('thief');
    expect(await refusal(h.community.createDraftFromJob({ authorUserId: thief, jobId: job.id }))).toMatchObject({
      code: ErrorCode.NOT_FOUND,
      reason: 'JOB_NOT_FOUND',
    });
    const queued = await queuedStylizeJob(h, author, newKey());
    expect(await refusal(h.community.createDraftFromJob({ authorUserId: author, jobId: queued.id }))).toMatchObject({
      code: ErrorCode.FAILED_PRECONDITION,
      reason: 'GENERATION_JOB_NOT_SUCCEEDED',
    });
    expect(await refusal(h.community.createDraftFromJob({ authorUserId: author, jobId: job.id, title: '' }))).toMatchObject({
      field: 'title',
    });
    expect(await countPosts(thief)).toBe(0);
    expect(await countPosts(author)).toBe(0);
  });
});

describe('community - UpdatePost', () => {
  it('changes the fields that are set and raises the version; a stale version is ABORTED', async () => {
    const author = newUser('editor');
    const { post } = await h.community.createPost(postRequest(author));
    const { post: updated } = await h.community.updatePost({
      postId: post!.id,
      authorUserId: author,
      expectedVersion: 1,
      title: 'A better title',
      category: PostCategory.HELP,
      status: PostStatus.UNSPECIFIED,
      media: undefined,
    });
    expect(updated).toMatchObject({ title: 'A better title', content: post!.content, category: PostCategory.HELP, version: 2 });
    expect(updated!.updatedAt!.getTime()).toBeGreaterThanOrEqual(post!.updatedAt!.getTime());
    expect(
      await refusal(
        h.community.updatePost(
          communityV1.UpdatePostRequest.fromPartial({ postId: post!.id, authorUserId: author, expectedVersion: 1, content: 'stale' }),
        ),
      ),
    ).toMatchObject({ code: ErrorCode.ABORTED, reason: 'VERSION_CONFLICT' });
    expect((await h.community.getPost({ postId: post!.id, callerUserId: author })).post).toEqual(updated);
  });

  it('lets exactly one of two concurrent updates of one version win', async () => {
    const author = newUser('race');
    const { post } = await h.community.createPost(postRequest(author));
    const update = (title: string) =>
      h.community.updatePost(
        communityV1.UpdatePostRequest.fromPartial({ postId: post!.id, authorUserId: author, expectedVersion: 1, title }),
      );
    const outcomes = await Promise.allSettled([update('Left'), update('Right')]);
    const won = outcomes.filter((o) => o.status === 'fulfilled');
    const lost = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect(lost[0]!.reason).toMatchObject({ code: ErrorCode.ABORTED, reason: 'VERSION_CONFLICT' });
    const current = (await h.community.getPost({ postId: post!.id, callerUserId: author })).post!;
    expect(current.version).toBe(2);
    expect(current.title).toBe((won[0] as PromiseFulfilledResult<communityV1.UpdatePostResponse>).value.post!.title);
  });

  it('publishes a draft (published_at set, in the feed) and refuses to unpublish it', async () => {
    const author = newUser('publisher');
    const { post } = await h.community.createPost(postRequest(author));
    expect((await readFeed()).map((p) => p.id)).not.toContain(post!.id);
    const { post: published } = await h.community.updatePost(
      communityV1.UpdatePostRequest.fromPartial({
        postId: post!.id,
        authorUserId: author,
        expectedVersion: 1,
        status: PostStatus.PUBLISHED,
      }),
    );
    expect(published).toMatchObject({ status: PostStatus.PUBLISHED, version: 2 });
    expect(published!.publishedAt!.getTime()).toBeGreaterThanOrEqual(post!.createdAt!.getTime());
    expect((await readFeed()).find((p) => p.id === post!.id)).toEqual(published);
    expect(
      await refusal(
        h.community.updatePost(
          communityV1.UpdatePostRequest.fromPartial({
            postId: post!.id,
            authorUserId: author,
            expectedVersion: 2,
            status: PostStatus.DRAFT,
          }),
        ),
      ),
    ).toMatchObject({ code: ErrorCode.FAILED_PRECONDITION, reason: 'POST_ALREADY_PUBLISHED' });
    // Editing a published post keeps its place in the feed.
    const { post: edited } = await h.community.updatePost(
      communityV1.UpdatePostRequest.fromPartial({ postId: post!.id, authorUserId: author, expectedVersion: 2, content: 'edited' }),
    );
    expect(edited!.publishedAt).toEqual(published!.publishedAt);
  });

  it('keeps every rule: no ai_creation without a job, media checked, the job output kept', async () => {
    const author = newUser('rules');
    const job = await succeededJob(h, author, newKey());
    const plain = (await h.community.createPost(postRequest(author))).post!;
    expect(
      await refusal(
        h.community.updatePost(
          communityV1.UpdatePostRequest.fromPartial({
            postId: plain.id,
            authorUserId: author,
            expectedVersion: 1,
            category: PostCategory.AI_CREATION,
          }),
        ),
      ),
    ).toMatchObject({ code: ErrorCode.FAILED_PRECONDITION, reason: 'GENERATION_JOB_REQUIRED' });
    const foreign = await uploadImage(h.media, newUser('elsewhere'));
    expect(
      await refusal(
        h.community.updatePost(
          communityV1.UpdatePostRequest.fromPartial({
            postId: plain.id,
            authorUserId: author,
            expectedVersion: 1,
            media: { assetIds: [foreign] },
          }),
        ),
      ),
    ).toMatchObject({ code: ErrorCode.NOT_FOUND, reason: 'MEDIA_NOT_FOUND' });

    const draft = (await h.community.createDraftFromJob({ authorUserId: author, jobId: job.id })).post!;
    const photo = await uploadImage(h.media, author);
    expect(
      await refusal(
        h.community.updatePost(
          communityV1.UpdatePostRequest.fromPartial({
            postId: draft.id,
            authorUserId: author,
            expectedVersion: 1,
            media: { assetIds: [photo] },
          }),
        ),
      ),
    ).toMatchObject({ code: ErrorCode.FAILED_PRECONDITION, reason: 'GENERATION_OUTPUT_NOT_ATTACHED' });
    const { post: withPhoto } = await h.community.updatePost(
      communityV1.UpdatePostRequest.fromPartial({
        postId: draft.id,
        authorUserId: author,
        expectedVersion: 1,
        media: { assetIds: [photo, job.outputAssetId!] },
      }),
    );
    expect(withPhoto).toMatchObject({
      version: 2,
      media: [
        { assetId: photo, ordinal: 0 },
        { assetId: job.outputAssetId, ordinal: 1 },
      ],
    });
    expect((await h.community.getPost({ postId: draft.id, callerUserId: author })).post!.media).toEqual(withPhoto!.media);
    // Nothing refused was written.
    expect((await h.community.getPost({ postId: plain.id, callerUserId: author })).post!.version).toBe(1);
  });

  it("answers NOT_FOUND for someone else's post and for a deleted one", async () => {
    const author = newUser('mine');
    const { post } = await h.community.createPost(postRequest(author, { status: PostStatus.PUBLISHED }));
    const edit = (authorUserId: string, expectedVersion: number) =>
      h.community.updatePost(
        communityV1.UpdatePostRequest.fromPartial({ postId: post!.id, authorUserId, expectedVersion, title: 'Mine now' }),
      );
    expect(await refusal(edit(newUser('intruder'), 1))).toMatchObject({ code: ErrorCode.NOT_FOUND, reason: 'POST_NOT_FOUND' });
    await h.community.deletePost({ postId: post!.id, authorUserId: author });
    expect(await refusal(edit(author, 2))).toMatchObject({ code: ErrorCode.NOT_FOUND, reason: 'POST_NOT_FOUND' });
  });
});

describe('community - DeletePost', () => {
  it('soft-deletes: gone from the feed and GetPost, idempotent, and not for others', async () => {
    const author = newUser('deleter');
    const post = await publishedPost(author);
    expect(await refusal(h.community.deletePost({ postId: post.id, authorUserId: newUser('vandal') }))).toMatchObject({
      code: ErrorCode.NOT_FOUND,
    });
    const { post: deleted } = await h.community.deletePost({ postId: post.id, authorUserId: author });
    expect(deleted).toMatchObject({ status: PostStatus.DELETED, version: 2, publishedAt: post.publishedAt });
    expect((await h.community.deletePost({ postId: post.id, authorUserId: author })).post).toEqual(deleted);
    expect((await readFeed()).map((p) => p.id)).not.toContain(post.id);
    expect(await refusal(h.community.getPost({ postId: post.id, callerUserId: author }))).toMatchObject({ code: ErrorCode.NOT_FOUND });
    expect((await h.community.listMyPosts({ authorUserId: author, status: 0, pageSize: 0, pageToken: '' })).posts).toEqual([]);
    const { rows } = await h.db.query('SELECT status, deleted_at FROM community.posts WHERE id = $1', [post.id]);
    expect(rows[0]).toMatchObject({ status: 'deleted', deleted_at: expect.any(Date) });
  });
});

describe('community - GetPost visibility', () => {
  it('shows a draft to its author only, a published post to anyone', async () => {
    const author = newUser('shy');
    const { post: draft } = await h.community.createPost(postRequest(author));
    const reader = newUser('reader');
    expect(await refusal(h.community.getPost({ postId: draft!.id, callerUserId: reader }))).toMatchObject({
      code: ErrorCode.NOT_FOUND,
      reason: 'POST_NOT_FOUND',
    });
    expect(await refusal(h.community.getPost({ postId: UNKNOWN_ID, callerUserId: reader }))).toMatchObject({ code: ErrorCode.NOT_FOUND });
    const post = await publishedPost(author);
    expect((await h.community.getPost({ postId: post.id, callerUserId: reader })).post).toEqual(post);
    expect(await refusal(h.community.getPost({ postId: post.id, callerUserId: '' }))).toMatchObject({ field: 'caller_user_id' });
  });
});

describe('community - ListFeed', () => {
  it('pages newest first without duplicates or gaps while new posts are published between pages', async () => {
    const author = newUser('feeder');
    for (let i = 0; i < 7; i += 1) await publishedPost(author, `Feed post ${i}`);
    await h.community.createPost(postRequest(author, { title: 'A draft never shows' }));
    const original = await readFeed();
    const sorted = [...original].sort(
      (a, b) => b.publishedAt!.getTime() - a.publishedAt!.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0),
    );
    expect(original.map((p) => p.id)).toEqual(sorted.map((p) => p.id));
    expect(original.every((p) => p.status === PostStatus.PUBLISHED)).toBe(true);

    const seen: string[] = [];
    const publishedMeanwhile: string[] = [];
    let pageToken = '';
    do {
      const page = await h.community.listFeed({ pageSize: 3, pageToken });
      expect(page.posts.length).toBeLessThanOrEqual(3);
      seen.push(...page.posts.map((p) => p.id));
      pageToken = page.nextPageToken;
      publishedMeanwhile.push((await publishedPost(newUser('latecomer'), 'Published while paging')).id);
    } while (pageToken);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(original.map((p) => p.id));
    expect(seen.some((id) => publishedMeanwhile.includes(id))).toBe(false);
    expect((await h.community.listFeed({ pageSize: 1, pageToken: '' })).posts[0]!.id).toBe(publishedMeanwhile.at(-1));
  });

  it('refuses a bad page token or size by field', async () => {
    expect(await refusal(h.community.listFeed({ pageSize: 0, pageToken: 'garbage' }))).toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
      field: 'page_token',
    });
    expect(await refusal(h.community.listFeed({ pageSize: 101, pageToken: '' }))).toMatchObject({ field: 'page_size' });
    const author = newUser('tokens');
    await h.community.createPost(postRequest(author));
    await h.community.createPost(postRequest(author));
    const mine = await h.community.listMyPosts({ authorUserId: author, status: 0, pageSize: 1, pageToken: '' });
    expect(await refusal(h.community.listFeed({ pageSize: 1, pageToken: mine.nextPageToken }))).toMatchObject({ field: 'page_token' });
  });
});

describe('community - author handles (privacy)', () => {
  it('shows a random, stable handle per author that says nothing of the subject, the same in every view', async () => {
    const alice = `alice.${process.pid}.${++seq}@example.com`;
    const bob = newUser('bob');
    const first = await publishedPost(alice, 'First');
    const second = await publishedPost(alice, 'Second');
    const bobs = await publishedPost(bob, "Bob's");
    expect(first.authorHandle).toMatch(/^u[0-9a-f]{16}$/);
    expect(first.authorHandle).not.toContain('alice');
    expect(second.authorHandle).toBe(first.authorHandle);
    expect(bobs.authorHandle).not.toBe(first.authorHandle);

    const feed = await readFeed();
    expect(feed.find((p) => p.id === first.id)!.authorHandle).toBe(first.authorHandle);
    expect((await h.community.getPost({ postId: second.id, callerUserId: bob })).post!.authorHandle).toBe(first.authorHandle);
    const draft = (await h.community.createPost(postRequest(alice))).post!;
    expect(draft.authorHandle).toBe(first.authorHandle);
    const mine = await h.community.listMyPosts({ authorUserId: alice, status: 0, pageSize: 10, pageToken: '' });
    expect(new Set(mine.posts.map((p) => p.authorHandle))).toEqual(new Set([first.authorHandle]));
    const updated = await h.community.updatePost(
      communityV1.UpdatePostRequest.fromPartial({
        postId: draft.id,
        authorUserId: alice,
        expectedVersion: draft.version,
        title: 'Renamed',
      }),
    );
    expect(updated.post!.authorHandle).toBe(first.authorHandle);
  });
});

describe('community - ListMyPosts', () => {
  it("lists the author's drafts and published posts, newest first, by status when asked, page by page", async () => {
    const author = newUser('diarist');
    const made: communityV1.Post[] = [];
    for (let i = 0; i < 5; i += 1) {
      const status = i % 2 === 0 ? PostStatus.DRAFT : PostStatus.PUBLISHED;
      made.push((await h.community.createPost(postRequest(author, { title: `Mine ${i}`, status }))).post!);
    }
    const gone = (await h.community.createPost(postRequest(author, { title: 'Deleted' }))).post!;
    await h.community.deletePost({ postId: gone.id, authorUserId: author });
    await publishedPost(newUser('someoneElse'));

    const pages: string[][] = [];
    let pageToken = '';
    do {
      const page = await h.community.listMyPosts({ authorUserId: author, status: PostStatus.UNSPECIFIED, pageSize: 2, pageToken });
      pages.push(page.posts.map((p) => p.id));
      pageToken = page.nextPageToken;
    } while (pageToken);
    expect(pages.map((p) => p.length)).toEqual([2, 2, 1]);
    expect(pages.flat()).toEqual([...made].reverse().map((p) => p.id));

    const drafts = await h.community.listMyPosts({ authorUserId: author, status: PostStatus.DRAFT, pageSize: 0, pageToken: '' });
    expect(drafts.posts.map((p) => p.title)).toEqual(['Mine 4', 'Mine 2', 'Mine 0']);
    const published = await h.community.listMyPosts({ authorUserId: author, status: PostStatus.PUBLISHED, pageSize: 0, pageToken: '' });
    expect(published.posts.map((p) => p.title)).toEqual(['Mine 3', 'Mine 1']);
    expect(
      await refusal(h.community.listMyPosts({ authorUserId: author, status: PostStatus.DELETED, pageSize: 0, pageToken: '' })),
    ).toMatchObject({
      field: 'status',
    });
  });
});

describe('community - invalid arguments', () => {
  it('names the field at fault and writes nothing', async () => {
    const author = newUser('sloppy');
    const images = await Promise.all(Array.from({ length: 11 }, () => uploadImage(h.media, author)));
    const cases: [Partial<communityV1.CreatePostRequest>, string][] = [
      [{ title: '' }, 'title'],
      [{ title: '   ' }, 'title'],
      [{ title: 'x'.repeat(121) }, 'title'],
      [{ content: 'x'.repeat(10_001) }, 'content'],
      [{ mediaAssetIds: images }, 'media_asset_ids'],
      [{ mediaAssetIds: [images[0]!, images[0]!] }, 'media_asset_ids'],
      [{ mediaAssetIds: ['not-a-uuid'] }, 'media_asset_ids'],
      [{ petId: 'pet-1' }, 'pet_id'],
      [{ generationJobId: 'job-1' }, 'generation_job_id'],
      [{ category: PostCategory.UNSPECIFIED }, 'category'],
      [{ status: PostStatus.DELETED }, 'status'],
      [{ idempotencyKey: '  ' }, 'idempotency_key'],
      [{ idempotencyKey: 'k'.repeat(129) }, 'idempotency_key'],
      // NUL never reaches a text column (Postgres refuses it: 22021).
      [{ title: 'a\u0000b' }, 'title'],
      [{ content: 'hello\u0000' }, 'content'],
      [{ idempotencyKey: 'k\u0000' }, 'idempotency_key'],
      [{ authorUserId: '' }, 'author_user_id'],
      [{ authorUserId: 'has space' }, 'author_user_id'],
    ];
    for (const [overrides, field] of cases) {
      expect(await refusal(h.community.createPost(postRequest(author, overrides))), field).toMatchObject({
        code: ErrorCode.INVALID_ARGUMENT,
        field,
      });
    }
    expect(await refusal(h.community.getPost({ postId: 'nope', callerUserId: author }))).toMatchObject({ field: 'post_id' });
    expect(await refusal(h.community.createDraftFromJob({ authorUserId: author, jobId: 'nope' }))).toMatchObject({ field: 'job_id' });
    expect(
      await refusal(h.community.updatePost(communityV1.UpdatePostRequest.fromPartial({ postId: UNKNOWN_ID, authorUserId: author }))),
    ).toMatchObject({ field: 'expected_version' });
    expect(await countPosts(author)).toBe(0);
    // The limits are inclusive.
    const { post } = await h.community.createPost(postRequest(author, { title: 't'.repeat(120), mediaAssetIds: images.slice(0, 10) }));
    expect(post!.media).toHaveLength(10);
  });
});

describe('community - database rules', () => {
  const insert = (category: string, status: string, generationJobId: string | null, publishedAt: Date | null) =>
    h.db.query(
      `INSERT INTO community.posts (id, author_user_id, category, title, status, generation_job_id, idempotency_key, request_hash, published_at)
       VALUES ($1, 'raw-sql', $2, 'Raw', $3, $4, $5, $6, $7)`,
      [uuidv7(), category, status, generationJobId, newKey(), Buffer.alloc(32), publishedAt],
    );
  const violation = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: { constraint?: string }) => error.constraint,
    );

  it('refuses rows that break the post rules, whoever writes them', async () => {
    expect(await violation(insert('ai_creation', 'draft', null, null))).toBe('posts_ai_creation_has_job');
    expect(await violation(insert('general', 'published', null, null))).toBe('posts_status_timestamps');
    expect(await violation(insert('general', 'draft', null, new Date(Date.now() + 60_000)))).toBe('posts_status_timestamps');
    expect(await violation(insert('poetry', 'draft', null, null))).toBe('posts_category_known');
    expect(await violation(insert('ai_creation', 'draft', UNKNOWN_ID, null))).toBeUndefined();
  });
});

describe('community - health and reflection', () => {
  it('answers grpc.health.v1 SERVING and lists the service through reflection', async () => {
    const healthAddress = `127.0.0.1:${h.app.server.healthPort}`;
    expect(await checkHealth(healthAddress)).toBe('SERVING');
    expect(await checkHealth(healthAddress, COMMUNITY_SERVICE_NAME)).toBe('SERVING');
    expect(await listReflectedServices(h.address, await testSecurity('gateway'), 'community')).toEqual([COMMUNITY_SERVICE_NAME]);
  });
});

describe('community - process start-up', () => {
  const main = fileURLToPath(new URL('./main.ts', import.meta.url));

  it('stops with a message naming the variable when the configuration is bad', () => {
    const result = spawnSync(process.execPath, ['--import', 'tsx', main], {
      env: { ...process.env, GRPC_PORT: 'eighty', JOBS_ADDR: 'nowhere', DATABASE_URL: 'mysql://secret@x' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(result.status).toBe(78);
    expect(result.stderr).toContain('GRPC_PORT');
    expect(result.stderr).toContain('JOBS_ADDR');
    expect(result.stderr).toContain('DATABASE_URL');
    expect(result.stderr).not.toContain('secret');
  });

  it('refuses to serve a schema with pending migrations', async () => {
    const fresh = await createTestDatabase();
    try {
      const result = spawnSync(process.execPath, ['--import', 'tsx', main], {
        env: {
          ...process.env,
          ...(await testIdentityEnv('community')),
          PRODUCT_EVENTS_USER_KEY: testProductEventsKey(),
          GRPC_PORT: '0',
          DATABASE_URL: fresh.url,
          LOG_LEVEL: 'info',
        },
        encoding: 'utf8',
        timeout: 20_000,
      });
      expect(result.status).toBe(1);
      expect(result.stdout + result.stderr).toContain('npm run migrate -w @atelier/community');
    } finally {
      await fresh.drop();
    }
  });
});

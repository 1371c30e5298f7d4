import { describe, expect, it } from 'vitest';
import { communityV1 } from '@atelier/contracts';
import { ErrorCode } from '@atelier/errors';
import { defaultDraftTitle } from './draft-title.js';
import { requireJobForCategory, requireOutputAttached } from './generation-rules.js';
import { normaliseCreateCommand } from './post-command.js';
import { requireMediaAssetIds } from './post-rules.js';
import { normaliseUpdateFields, planUpdate, type PostState, type UpdateFields } from './post-update.js';
import { createPostHash, draftFromJobHash } from './request-hash.js';

const { PostCategory, PostStatus } = communityV1;
const ASSET_A = '019a0000-0000-7000-8000-00000000000a';
const ASSET_B = '019a0000-0000-7000-8000-00000000000b';
const JOB = '019a0000-0000-7000-8000-0000000000f1';

function thrown(work: () => unknown): { code: string; reason?: string; field?: string; message: string } {
  try {
    work();
  } catch (error) {
    return error as never;
  }
  throw new Error('expected a refusal');
}

const createRequest = (overrides: Partial<communityV1.CreatePostRequest> = {}) =>
  communityV1.CreatePostRequest.fromPartial({
    authorUserId: 'alice',
    idempotencyKey: 'k',
    category: PostCategory.GENERAL,
    title: 'Hello',
    mediaAssetIds: [ASSET_A, ASSET_B],
    ...overrides,
  });

describe('request hash - canonical command', () => {
  it('hashes equal commands equally, whatever the key order or cosmetic whitespace', () => {
    const plain = normaliseCreateCommand(createRequest({ status: PostStatus.DRAFT }));
    const cosmetic = normaliseCreateCommand(createRequest({ title: '  Hello \n', status: PostStatus.UNSPECIFIED }));
    expect(createPostHash(cosmetic).equals(createPostHash(plain))).toBe(true);
    expect(createPostHash(plain)).toHaveLength(32);
  });

  it('tells apart commands that differ in any field, media order included', () => {
    const base = createPostHash(normaliseCreateCommand(createRequest()));
    for (const other of [
      createRequest({ title: 'Hello!' }),
      createRequest({ content: 'more' }),
      createRequest({ category: PostCategory.HELP }),
      createRequest({ status: PostStatus.PUBLISHED }),
      createRequest({ mediaAssetIds: [ASSET_B, ASSET_A] }),
      createRequest({ petId: ASSET_A }),
    ]) {
      expect(createPostHash(normaliseCreateCommand(other)).equals(base)).toBe(false);
    }
  });

  it('gives a draft from a job a hash of its own that ignores its text', () => {
    expect(draftFromJobHash(JOB).equals(draftFromJobHash(JOB.toUpperCase().toLowerCase()))).toBe(true);
    expect(draftFromJobHash(JOB).equals(draftFromJobHash(ASSET_A))).toBe(false);
  });

  it('stays what it was: hashes stored with idempotency keys must keep matching', () => {
    expect(draftFromJobHash('019a0000-0000-7000-8000-0000000000aa').toString('hex')).toBe(
      '16b780171c7331475ec71afae8c8a144826289f4a7419e3c13a69d5bc3522fca',
    );
  });
});

describe('post rules - fields', () => {
  it('names the field of every malformed create', () => {
    const cases: [Partial<communityV1.CreatePostRequest>, string][] = [
      [{ title: '   ' }, 'title'],
      [{ title: 'x'.repeat(121) }, 'title'],
      [{ content: 'x'.repeat(10_001) }, 'content'],
      [{ category: PostCategory.UNSPECIFIED }, 'category'],
      [{ status: PostStatus.DELETED }, 'status'],
      [{ petId: 'not-a-uuid' }, 'pet_id'],
      [{ generationJobId: '123' }, 'generation_job_id'],
      [{ mediaAssetIds: ['nope'] }, 'media_asset_ids'],
    ];
    for (const [overrides, field] of cases) {
      expect(thrown(() => normaliseCreateCommand(createRequest(overrides)))).toMatchObject({ code: ErrorCode.INVALID_ARGUMENT, field });
    }
    expect(normaliseCreateCommand(createRequest({ title: 'x'.repeat(120), content: '' })).title).toHaveLength(120);
  });

  it('allows at most 10 media, each once, and canonicalises their ids', () => {
    const ids = Array.from({ length: 11 }, (_, i) => `019a0000-0000-7000-8000-0000000001${String(i).padStart(2, '0')}`);
    expect(requireMediaAssetIds(ids.slice(0, 10), 'media_asset_ids')).toHaveLength(10);
    expect(thrown(() => requireMediaAssetIds(ids, 'media_asset_ids')).message).toContain('at most 10');
    expect(thrown(() => requireMediaAssetIds([ASSET_A, ASSET_A.toUpperCase()], 'media_asset_ids')).message).toContain('entry 1');
    expect(requireMediaAssetIds([ASSET_A.toUpperCase()], 'x')).toEqual([ASSET_A]);
  });
});

describe('generation rules - job and output', () => {
  it('requires a job for ai_creation and its output among the media', () => {
    expect(thrown(() => requireJobForCategory('ai_creation', null))).toMatchObject({ reason: 'GENERATION_JOB_REQUIRED' });
    expect(() => requireJobForCategory('ai_creation', JOB)).not.toThrow();
    expect(() => requireJobForCategory('general', null)).not.toThrow();
    expect(thrown(() => requireOutputAttached(ASSET_A, [ASSET_B]))).toMatchObject({ reason: 'GENERATION_OUTPUT_NOT_ATTACHED' });
    expect(thrown(() => requireOutputAttached(null, [ASSET_B]))).toMatchObject({ reason: 'GENERATION_OUTPUT_NOT_ATTACHED' });
    expect(() => requireOutputAttached(ASSET_A, [ASSET_B, ASSET_A])).not.toThrow();
  });
});

describe('post update - plan', () => {
  const current: PostState = {
    title: 'Hello',
    content: '',
    category: 'general',
    status: 'draft',
    petId: null,
    generationJobId: null,
    mediaAssetIds: [ASSET_A],
    version: 3,
  };
  const fields = (overrides: Partial<communityV1.UpdatePostRequest> = {}): UpdateFields =>
    normaliseUpdateFields(
      communityV1.UpdatePostRequest.fromPartial({ postId: JOB, authorUserId: 'alice', expectedVersion: 3, ...overrides }),
    );

  it('changes only what is set, and nothing when nothing differs', () => {
    expect(planUpdate(current, fields())).toEqual({
      title: 'Hello',
      content: '',
      category: 'general',
      status: 'draft',
      petId: null,
      mediaAssetIds: null,
      changes: false,
      checkMedia: false,
    });
    expect(planUpdate(current, fields({ title: 'Hello ', media: { assetIds: [ASSET_A] } }))).toMatchObject({
      changes: false,
      checkMedia: false,
    });
    expect(planUpdate(current, fields({ content: 'new' }))).toMatchObject({
      title: 'Hello',
      content: 'new',
      changes: true,
      checkMedia: false,
    });
    expect(planUpdate(current, fields({ media: { assetIds: [ASSET_B, ASSET_A] } }))).toMatchObject({
      mediaAssetIds: [ASSET_B, ASSET_A],
      checkMedia: true,
    });
    expect(planUpdate({ ...current, petId: ASSET_B }, fields({ petId: '' }))).toMatchObject({ petId: null, changes: true });
    expect(planUpdate(current, fields({ status: PostStatus.PUBLISHED }))).toMatchObject({ status: 'published', changes: true });
  });

  it('refuses a stale version, unpublishing, and ai_creation without a job', () => {
    expect(thrown(() => planUpdate(current, fields({ expectedVersion: 2 })))).toMatchObject({
      code: ErrorCode.ABORTED,
      reason: 'VERSION_CONFLICT',
    });
    expect(thrown(() => planUpdate({ ...current, status: 'published' }, fields({ status: PostStatus.DRAFT })))).toMatchObject({
      code: ErrorCode.FAILED_PRECONDITION,
      reason: 'POST_ALREADY_PUBLISHED',
    });
    expect(thrown(() => planUpdate(current, fields({ category: PostCategory.AI_CREATION })))).toMatchObject({
      reason: 'GENERATION_JOB_REQUIRED',
    });
    expect(planUpdate({ ...current, generationJobId: JOB }, fields({ category: PostCategory.AI_CREATION })).category).toBe('ai_creation');
  });

  it('names the field of a malformed update', () => {
    expect(thrown(() => fields({ expectedVersion: 0 }))).toMatchObject({ field: 'expected_version' });
    expect(thrown(() => fields({ title: '' }))).toMatchObject({ field: 'title' });
    expect(thrown(() => fields({ status: PostStatus.DELETED }))).toMatchObject({ field: 'status' });
    expect(thrown(() => fields({ media: { assetIds: ['x'] } }))).toMatchObject({ field: 'media.asset_ids' });
  });
});

describe('draft title - default from the job', () => {
  it('names the style, or falls back, within 120 characters', () => {
    expect(defaultDraftTitle('comic')).toBe('My comic creation');
    expect(defaultDraftTitle('ink-wash__style')).toBe('My ink wash style creation');
    expect(defaultDraftTitle(undefined)).toBe('My AI creation');
    expect(defaultDraftTitle('x'.repeat(200)).length).toBeLessThanOrEqual(120);
  });
});

import { randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mediaV1 } from '@atelier/contracts';
import { ErrorCode, UnavailableError } from '@atelier/errors';
import type { AssetUsage } from './peers/asset-usage.js';
import { startMediaHarness, type MediaHarness } from './test-support/media-harness.js';

const { AssetPurpose, AssetStatus } = mediaV1;

/** What the owner's delete asks jobs and community, answered by the test. */
const usage = {
  jobs: 0,
  posts: 0,
  failing: false,
  asked: [] as { assetId: string; owner: string; producingJobId: string | undefined }[],
};
const fakeUsage: AssetUsage = {
  async activeJobs(assetId, owner, producingJobId) {
    usage.asked.push({ assetId, owner, producingJobId });
    if (usage.failing) throw new UnavailableError('jobs is restarting');
    return usage.jobs;
  },
  async publishedPosts() {
    return usage.posts;
  },
};

let h: MediaHarness;
beforeAll(async () => {
  h = await startMediaHarness({
    assetUsage: fakeUsage,
    uploadLimits: { uploadsPerDay: 1_000, storedBytes: 2 ** 40, storedBytesRetryAfterSeconds: 60 },
  });
}, 60_000);
afterAll(async () => {
  await h?.stop();
});

const start = (owner: string, purpose = AssetPurpose.AI_INPUT) =>
  h.client.createUpload({ ownerUserId: owner, purpose, contentType: 'image/png', sizeBytes: 100 }).then((r) => r.asset!.id);

async function putOutput(owner: string, jobId: string): Promise<string> {
  const bytes = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#336699' } })
    .png()
    .toBuffer();
  async function* messages(): AsyncGenerator<mediaV1.PutServerAssetRequest> {
    yield {
      part: {
        $case: 'header',
        header: mediaV1.PutServerAssetHeader.fromPartial({
          ownerUserId: owner,
          purpose: AssetPurpose.AI_OUTPUT,
          contentType: 'image/png',
          sizeBytes: bytes.length,
          idempotencyKey: jobId,
        }),
      },
    };
    yield { part: { $case: 'chunk', chunk: bytes } };
  }
  return (await h.asWorker.putServerAsset(messages())).asset!.id;
}

async function everyPage(owner: string, purpose = AssetPurpose.UNSPECIFIED, pageSize = 10): Promise<string[][]> {
  const pages: string[][] = [];
  let cursor = '';
  do {
    const page = await h.client.listAssets({ ownerUserId: owner, purpose, pageSize, cursor });
    pages.push(page.items.map((item) => item.asset!.id));
    cursor = page.nextCursor;
  } while (cursor);
  return pages;
}

describe('media gallery - ListAssets', () => {
  it('pages newest first by (created_at, id), rows of one microsecond included, without repeats or gaps', async () => {
    const owner = `gallery-${randomUUID()}`;
    const ids = await Promise.all(Array.from({ length: 25 }, () => start(owner)));
    // Ten rows share one instant: the id alone orders them, and a page boundary falls among them.
    await h.pool.query(`UPDATE media.assets SET created_at = '2026-12-01T10:00:00.123456Z' WHERE id = ANY($1::uuid[])`, [ids.slice(0, 10)]);
    const { rows } = await h.pool.query<{ id: string }>(
      'SELECT id FROM media.assets WHERE owner_user_id = $1 ORDER BY created_at DESC, id DESC',
      [owner],
    );
    const pages = await everyPage(owner, AssetPurpose.UNSPECIFIED, 7);
    expect(pages.map((page) => page.length)).toEqual([7, 7, 7, 4]);
    expect(pages.flat()).toEqual(rows.map((row) => row.id));
  });

  it('filters by purpose, leaves deleted assets out and hands out URLs for ready ones only', async () => {
    const owner = `gallery-${randomUUID()}`;
    const upload = await start(owner, AssetPurpose.POST_IMAGE);
    const output = await putOutput(owner, randomUUID());
    const gone = await putOutput(owner, randomUUID());
    await h.asWorker.deleteAsset({ assetId: gone });
    expect(await everyPage(owner)).toEqual([[output, upload]]);
    expect(await everyPage(owner, AssetPurpose.AI_OUTPUT)).toEqual([[output]]);
    const { items } = await h.client.listAssets({ ownerUserId: owner, purpose: AssetPurpose.UNSPECIFIED, pageSize: 0, cursor: '' });
    expect(items.map((item) => Boolean(item.downloadUrl))).toEqual([true, false]);
    expect(await everyPage(`gallery-${randomUUID()}`)).toEqual([[]]);
  });

  it('refuses a page size, purpose or cursor it cannot use, naming the field', async () => {
    const owner = `gallery-${randomUUID()}`;
    for (const [request, field] of [
      [{ pageSize: 101 }, 'page_size'],
      [{ purpose: 42 as mediaV1.AssetPurpose }, 'purpose'],
      [{ cursor: Buffer.from('{"c":"1","i":"nope"}').toString('base64url') }, 'cursor'],
    ] as const) {
      const firstPage: mediaV1.ListAssetsRequest = { ownerUserId: owner, purpose: AssetPurpose.UNSPECIFIED, pageSize: 0, cursor: '' };
      await expect(h.client.listAssets({ ...firstPage, ...request })).rejects.toMatchObject({
        code: ErrorCode.INVALID_ARGUMENT,
        message: expect.stringContaining(field),
      });
    }
  });
});

describe('media owner delete - DeleteOwnAsset', () => {
  it('asks jobs about the job that writes an output, and refuses while it runs', async () => {
    const owner = `delete-${randomUUID()}`;
    const jobId = randomUUID();
    const output = await putOutput(owner, jobId);
    usage.jobs = 1;
    await expect(h.client.deleteOwnAsset({ assetId: output, ownerUserId: owner })).rejects.toMatchObject({
      code: ErrorCode.FAILED_PRECONDITION,
      reason: 'ASSET_IN_USE',
    });
    usage.jobs = 0;
    expect(usage.asked.at(-1)).toEqual({ assetId: output, owner, producingJobId: jobId });
    expect((await h.client.getAsset({ assetId: output, callerUserId: owner })).asset!.status).toBe(AssetStatus.READY);
  });

  it('puts the asset back as it was when a peer cannot answer', async () => {
    const owner = `delete-${randomUUID()}`;
    const upload = await start(owner);
    usage.failing = true;
    await expect(h.client.deleteOwnAsset({ assetId: upload, ownerUserId: owner })).rejects.toMatchObject({
      code: ErrorCode.UNAVAILABLE,
    });
    usage.failing = false;
    expect((await h.client.getAsset({ assetId: upload, callerUserId: owner })).asset!.status).toBe(AssetStatus.UPLOADING);
  });

  it('lets concurrent deletes of one asset all end with it gone, each 204 or 404', async () => {
    const owner = `delete-${randomUUID()}`;
    const output = await putOutput(owner, randomUUID());
    const outcomes = await Promise.allSettled(
      Array.from({ length: 6 }, () => h.client.deleteOwnAsset({ assetId: output, ownerUserId: owner })),
    );
    expect(outcomes.some((o) => o.status === 'fulfilled')).toBe(true);
    for (const o of outcomes) if (o.status === 'rejected') expect(o.reason).toMatchObject({ code: ErrorCode.NOT_FOUND });
    // An ai_output does not count towards the upload limit: its row is removed, not kept.
    expect((await h.pool.query('SELECT 1 FROM media.assets WHERE id = $1', [output])).rowCount).toBe(0);
  });

  it("is NOT_FOUND for someone else's asset, and leaves it untouched", async () => {
    const upload = await start('delete-owner');
    await expect(h.client.deleteOwnAsset({ assetId: upload, ownerUserId: 'delete-stranger' })).rejects.toMatchObject({
      code: ErrorCode.NOT_FOUND,
    });
    expect((await h.client.getAsset({ assetId: upload, callerUserId: 'delete-owner' })).asset!.status).toBe(AssetStatus.UPLOADING);
  });
});

describe("media retention's delete - DeleteExpiredInput", () => {
  const { ExpiredInputOutcome } = mediaV1;
  const expire = (assetId: string, ownerUserId: string) => h.asJobs.deleteExpiredInput({ assetId, ownerUserId }).then((r) => r.outcome);

  it('deletes an input image nothing uses; says so for one in a post or a running job, and leaves those as they were', async () => {
    const owner = `expire-${randomUUID()}`;
    const [unused, posted, running] = [await start(owner), await start(owner), await start(owner)];

    expect(await expire(unused, owner)).toBe(ExpiredInputOutcome.DELETED);
    expect((await h.pool.query('SELECT 1 FROM media.assets WHERE id = $1 AND status <> $2', [unused, 'deleted'])).rowCount).toBe(0);
    expect(await expire(unused, owner), 'asked again: already gone').toBe(ExpiredInputOutcome.GONE);

    usage.posts = 1;
    expect(await expire(posted, owner)).toBe(ExpiredInputOutcome.IN_USE_BY_POST);
    usage.posts = 0;
    usage.jobs = 1;
    expect(await expire(running, owner)).toBe(ExpiredInputOutcome.IN_USE_BY_JOB);
    usage.jobs = 0;
    for (const id of [posted, running]) {
      expect((await h.client.getAsset({ assetId: id, callerUserId: owner })).asset!.status).toBe(AssetStatus.UPLOADING);
    }
  });

  it("never deletes an output (GONE: not an input image), nor someone else's image", async () => {
    const owner = `expire-${randomUUID()}`;
    const output = await putOutput(owner, randomUUID());
    const upload = await start(owner);
    expect(await expire(output, owner)).toBe(ExpiredInputOutcome.GONE);
    expect(await expire(upload, 'expire-stranger')).toBe(ExpiredInputOutcome.GONE);
    expect((await h.client.getAsset({ assetId: output, callerUserId: owner })).asset!.status).toBe(AssetStatus.READY);
    expect((await h.client.getAsset({ assetId: upload, callerUserId: owner })).asset!.status).toBe(AssetStatus.UPLOADING);
  });

  it('is for jobs only: the gateway may not call it', async () => {
    await expect(h.client.deleteExpiredInput({ assetId: randomUUID(), ownerUserId: 'x' })).rejects.toMatchObject({
      code: ErrorCode.PERMISSION_DENIED,
    });
  });
});

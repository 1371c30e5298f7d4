import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mediaV1 } from '@atelier/contracts';
import { ErrorCode, type AppError } from '@atelier/errors';
import { startMediaHarness, type MediaHarness } from './test-support/media-harness.js';

const LIMITS = { uploadsPerDay: 5, storedBytes: 10_000, storedBytesRetryAfterSeconds: 120 };
let h: MediaHarness;

beforeAll(async () => {
  h = await startMediaHarness({ uploadLimits: LIMITS });
}, 60_000);

afterAll(async () => {
  await h?.stop();
});

const start = (ownerUserId: string, sizeBytes: number) =>
  h.client.createUpload({ ownerUserId, purpose: mediaV1.AssetPurpose.POST_IMAGE, contentType: 'image/png', sizeBytes });

async function liveAssets(ownerUserId: string): Promise<{ n: number; bytes: number }> {
  const { rows } = await h.pool.query(
    `SELECT count(*) AS n, coalesce(sum(size_bytes), 0) AS bytes FROM media.assets WHERE owner_user_id = $1 AND status <> 'deleted'`,
    [ownerUserId],
  );
  return { n: Number(rows[0].n), bytes: Number(rows[0].bytes) };
}

describe('media limits - uploads per day', () => {
  it('admits exactly the daily limit out of 20 concurrent starts, and refuses the rest with a reason and the seconds to midnight', async () => {
    const user = `limits-day-${process.pid}`;
    const outcomes = await Promise.allSettled(Array.from({ length: 20 }, () => start(user, 100)));
    const admitted = outcomes.filter((o) => o.status === 'fulfilled').map((o) => o.value);
    const refused = outcomes.filter((o) => o.status === 'rejected').map((o) => o.reason as AppError);
    expect(admitted).toHaveLength(LIMITS.uploadsPerDay);
    expect(refused).toHaveLength(20 - LIMITS.uploadsPerDay);
    const now = new Date();
    const toMidnight = (Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1) - now.getTime()) / 1000;
    for (const error of refused) {
      expect(error).toMatchObject({ code: ErrorCode.RESOURCE_EXHAUSTED, reason: 'UPLOAD_QUOTA_EXCEEDED' });
      expect(error.message).toMatch(/daily limit of 5 uploads/);
      expect(error.retryAfterSeconds).toBeGreaterThan(toMidnight - 30);
      expect(error.retryAfterSeconds).toBeLessThanOrEqual(Math.ceil(toMidnight) + 1);
    }
    expect((await liveAssets(user)).n).toBe(LIMITS.uploadsPerDay);
    // Deleting does not give a start back: the day's starts are counted, not the live assets.
    await h.asWorker.deleteAsset({ assetId: admitted[0]!.asset!.id, ownerUserId: user });
    await expect(start(user, 100)).rejects.toMatchObject({ reason: 'UPLOAD_QUOTA_EXCEEDED' });
  });

  it('counts each user on their own', async () => {
    await expect(start(`limits-other-${process.pid}`, 100)).resolves.toMatchObject({ asset: { sizeBytes: 100 } });
  });
});

describe('media limits - bytes stored', () => {
  it('never lets concurrent starts reserve more than the limit, and frees the bytes of a deleted asset', async () => {
    const user = `limits-bytes-${process.pid}`;
    const outcomes = await Promise.allSettled(Array.from({ length: 4 }, () => start(user, 3_000)));
    const admitted = outcomes.filter((o) => o.status === 'fulfilled').map((o) => o.value);
    expect(admitted).toHaveLength(3);
    const refused = outcomes.find((o) => o.status === 'rejected')!.reason as AppError;
    expect(refused).toMatchObject({ code: ErrorCode.RESOURCE_EXHAUSTED, reason: 'STORAGE_QUOTA_EXCEEDED', retryAfterSeconds: 120 });
    expect(refused.message).toMatch(/limit of 10000 \(9000 in use\)/);
    expect(await liveAssets(user)).toEqual({ n: 3, bytes: 9_000 });
    await expect(start(user, 1_001)).rejects.toMatchObject({ reason: 'STORAGE_QUOTA_EXCEEDED' });
    await expect(start(user, 1_000)).resolves.toBeDefined();

    await h.asWorker.deleteAsset({ assetId: admitted[0]!.asset!.id, ownerUserId: user });
    await expect(start(user, 3_000)).resolves.toBeDefined();
    expect(await liveAssets(user)).toEqual({ n: 4, bytes: 10_000 });
  });
});

import { afterEach, describe, expect, it, vi } from 'vitest';
import { jobsV1, type mediaV1 } from '@atelier/contracts';
import { NotFoundError } from '@atelier/errors';
import type { PromiseClient } from '@atelier/grpc';
import { JobViews } from './job-view.js';

const job = jobsV1.Job.fromPartial({ id: 'job-1', userId: 'alice', status: jobsV1.JobStatus.SUCCEEDED, outputAssetId: 'asset-1' });

/** A media peer answering GetAsset with URLs valid for `ttlMs`, counting calls. */
function fakeMedia(ttlMs = 300_000, fail = false) {
  const getAsset = vi.fn(async (request: mediaV1.GetAssetRequest) => {
    if (fail) throw new NotFoundError('asset');
    return {
      downloadUrl: `http://s3.test/${request.assetId}?for=${request.callerUserId}&n=${getAsset.mock.calls.length}`,
      downloadExpiresAt: new Date(Date.now() + ttlMs),
    };
  });
  return { media: { getAsset } as unknown as PromiseClient<mediaV1.MediaServiceClient>, getAsset };
}

describe('job views', () => {
  afterEach(() => vi.useRealTimers());

  it('looks the output URL up once and reuses it for 30 s', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { media, getAsset } = fakeMedia();
    const views = new JobViews(media);
    const first = await views.view(job, 'alice');
    expect(first.outputUrl).toMatch(/^http:\/\/s3\.test\/asset-1/);
    expect((await views.view(job, 'alice')).outputUrl).toBe(first.outputUrl);
    expect(getAsset).toHaveBeenCalledTimes(1);
    vi.setSystemTime(Date.now() + 30_001);
    expect((await views.view(job, 'alice')).outputUrl).not.toBe(first.outputUrl);
    expect(getAsset).toHaveBeenCalledTimes(2);
  });

  it('never reuses a URL past half of its remaining life', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { media, getAsset } = fakeMedia(20_000);
    const views = new JobViews(media);
    await views.view(job, 'alice');
    vi.setSystemTime(Date.now() + 10_001);
    await views.view(job, 'alice');
    expect(getAsset).toHaveBeenCalledTimes(2);
  });

  it('keeps callers apart and remembers no failure', async () => {
    const { media, getAsset } = fakeMedia();
    const views = new JobViews(media);
    const alice = await views.view(job, 'alice');
    const bob = await views.view(job, 'bob');
    expect(bob.outputUrl).toContain('for=bob');
    expect(alice.outputUrl).toContain('for=alice');
    expect(getAsset).toHaveBeenCalledTimes(2);

    const failing = fakeMedia(300_000, true);
    const refusing = new JobViews(failing.media);
    expect((await refusing.view(job, 'alice')).outputUrl).toBeNull();
    expect((await refusing.view(job, 'alice')).outputUrl).toBeNull();
    expect(failing.getAsset).toHaveBeenCalledTimes(2);
  });

  it('asks nothing of media for a job without output', async () => {
    const { media, getAsset } = fakeMedia();
    const view = await new JobViews(media).view({ ...job, outputAssetId: undefined }, 'alice');
    expect(view.outputUrl).toBeNull();
    expect(getAsset).not.toHaveBeenCalled();
  });
});

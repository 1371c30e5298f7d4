import { afterEach, describe, expect, it, vi } from 'vitest';
import { jobsV1, type mediaV1 } from '@atelier/contracts';
import { NotFoundError } from '@atelier/errors';
import type { PromiseClient } from '@atelier/grpc';
import { Counter, createMetricsRegistry } from '@atelier/metrics';
import { FinishedJobCache, TERMINAL_VIEW_TTL_MS } from './finished-job-cache.js';

const job = jobsV1.Job.fromPartial({ id: 'job-1', userId: 'alice', status: jobsV1.JobStatus.SUCCEEDED, outputAssetId: 'asset-1' });

/** A media peer answering GetAsset with URLs valid for `ttlMs`, counting calls; `fail` refuses. */
function fakeMedia(ttlMs = 300_000) {
  const state = { fail: false };
  const getAsset = vi.fn(async (request: mediaV1.GetAssetRequest) => {
    if (state.fail) throw new NotFoundError('asset');
    return {
      downloadUrl: `http://s3.test/${request.assetId}?for=${request.callerUserId}&n=${getAsset.mock.calls.length}`,
      downloadExpiresAt: new Date(Date.now() + ttlMs),
    };
  });
  return { media: { getAsset } as unknown as PromiseClient<mediaV1.MediaServiceClient>, getAsset, state };
}

/** FinishedJobCache counting its lookups as the gateway's metric does. */
function countedViews(media: PromiseClient<mediaV1.MediaServiceClient>) {
  const registry = createMetricsRegistry('gateway-test');
  const lookups = new Counter({ name: 'lookups', help: 'test', labelNames: ['result'] as const, registers: [registry] });
  const count = async (result: string) => (await lookups.get()).values.find((v) => v.labels.result === result)?.value ?? 0;
  return { views: new FinishedJobCache(media, lookups), count };
}

describe('job views - output URLs', () => {
  afterEach(() => vi.useRealTimers());

  it('looks the output URL up once and reuses it for 30 s', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { media, getAsset } = fakeMedia();
    const views = new FinishedJobCache(media);
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
    const views = new FinishedJobCache(media);
    await views.view(job, 'alice');
    vi.setSystemTime(Date.now() + 10_001);
    await views.view(job, 'alice');
    expect(getAsset).toHaveBeenCalledTimes(2);
  });

  it('keeps callers apart and remembers no failure', async () => {
    const { media, getAsset } = fakeMedia();
    const views = new FinishedJobCache(media);
    const alice = await views.view(job, 'alice');
    const bob = await views.view(job, 'bob');
    expect(bob.outputUrl).toContain('for=bob');
    expect(alice.outputUrl).toContain('for=alice');
    expect(getAsset).toHaveBeenCalledTimes(2);

    const failing = fakeMedia();
    failing.state.fail = true;
    const refusing = new FinishedJobCache(failing.media);
    expect((await refusing.view(job, 'alice')).outputUrl).toBeNull();
    expect((await refusing.view(job, 'alice')).outputUrl).toBeNull();
    expect(failing.getAsset).toHaveBeenCalledTimes(2);
  });

  it('asks nothing of media for a job without output', async () => {
    const { media, getAsset } = fakeMedia();
    const view = await new FinishedJobCache(media).view({ ...job, outputAssetId: undefined }, 'alice');
    expect(view.outputUrl).toBeNull();
    expect(getAsset).not.toHaveBeenCalled();
  });
});

describe('job views - remembered terminal views', () => {
  afterEach(() => vi.useRealTimers());

  it('remembers succeeded, failed and cancelled jobs, and never a queued or running one', async () => {
    const { media } = fakeMedia();
    const { views, count } = countedViews(media);
    for (const status of [jobsV1.JobStatus.QUEUED, jobsV1.JobStatus.RUNNING]) {
      await views.view({ ...job, id: `job-${status}`, status, outputAssetId: undefined }, 'alice');
      expect(views.remembered(`job-${status}`, 'alice'), `status ${status}`).toBeUndefined();
    }
    for (const status of [jobsV1.JobStatus.SUCCEEDED, jobsV1.JobStatus.FAILED, jobsV1.JobStatus.CANCELLED]) {
      const seen = await views.view({ ...job, id: `job-${status}`, status, outputAssetId: undefined }, 'alice');
      expect(await views.remembered(`job-${status}`, 'alice'), `status ${status}`).toEqual(seen);
    }
    expect(await count('miss')).toBe(2);
    expect(await count('hit')).toBe(3);
  });

  it("answers only the owner: another user's read is a miss (it goes to jobs) and leaves the owner's entry alone", async () => {
    const { media } = fakeMedia();
    const { views, count } = countedViews(media);
    await views.view(job, 'alice');
    expect(views.remembered(job.id, 'bob')).toBeUndefined();
    expect(await count('miss')).toBe(1);
    const again = await views.remembered(job.id, 'alice');
    expect(again?.id).toBe(job.id);
    expect(again?.outputUrl).toContain('for=alice');
  });

  it('renews the output URL of a remembered view within its reuse deadline, never handing out an old one', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { media, getAsset } = fakeMedia(20_000);
    const views = new FinishedJobCache(media);
    const first = await views.view(job, 'alice');
    expect((await views.remembered(job.id, 'alice'))!.outputUrl).toBe(first.outputUrl);
    for (let step = 0; step < 6; step += 1) {
      vi.setSystemTime(Date.now() + 7_000);
      const answer = (await views.remembered(job.id, 'alice'))!;
      // At least half of the URL's life (20 s) is always left when it is handed out.
      expect(new Date(answer.outputUrlExpiresAt!).getTime() - Date.now()).toBeGreaterThanOrEqual(10_000);
    }
    expect(getAsset.mock.calls.length).toBeGreaterThanOrEqual(4);
  });

  it('answers a remembered view without a URL once media no longer has the output', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { media, state } = fakeMedia();
    const views = new FinishedJobCache(media);
    await views.view(job, 'alice');
    state.fail = true;
    vi.setSystemTime(Date.now() + 30_001);
    expect(await views.remembered(job.id, 'alice')).toMatchObject({ id: job.id, status: 'succeeded', outputUrl: null });
  });

  it('forgets a view after its time to live, and keeps no view of a job with a very long prompt', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { media } = fakeMedia();
    const views = new FinishedJobCache(media);
    await views.view(job, 'alice');
    vi.setSystemTime(Date.now() + TERMINAL_VIEW_TTL_MS - 1);
    expect(views.remembered(job.id, 'alice')).toBeDefined();
    vi.setSystemTime(Date.now() + 2);
    expect(views.remembered(job.id, 'alice')).toBeUndefined();

    await views.view({ ...job, id: 'wordy', prompt: 'x'.repeat(1_500), negativePrompt: 'y'.repeat(501) }, 'alice');
    expect(views.remembered('wordy', 'alice')).toBeUndefined();
  });

  it('forgets a view when retention is due to change it, and remembers none that is due but not yet changed', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { media } = fakeMedia();
    const views = new FinishedJobCache(media);
    const now = Date.now();
    await views.view({ ...job, id: 'redact-soon', inputsRedactAt: new Date(now + 60_000) }, 'alice');
    await views.view({ ...job, id: 'image-soon', inputImageDeleteAt: new Date(now + 60_000) }, 'alice');
    await views.view({ ...job, id: 'overdue', inputsRedactAt: new Date(now - 1) }, 'alice');
    await views.view({ ...job, id: 'redacted', inputsRedactAt: new Date(now - 1), inputsRedactedAt: new Date(now - 1) }, 'alice');
    expect(views.remembered('overdue', 'alice')).toBeUndefined();
    expect(views.remembered('redacted', 'alice'), 'once redacted, the view changes no more').toBeDefined();
    vi.setSystemTime(now + 60_000);
    expect(views.remembered('redact-soon', 'alice')).toBeUndefined();
    expect(views.remembered('image-soon', 'alice')).toBeUndefined();
    expect(views.remembered('redacted', 'alice')).toBeDefined();
  });
});

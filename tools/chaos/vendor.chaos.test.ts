// What the vendor is asked to do, and paid for. It stalls: the job still succeeds, charged once.
// A cancel travels beside the lease, not on its heartbeat (every 20 s by default): it reaches the
// vendor within a second, also when no worker is alive to hear it. Progress reaches the app as it
// moves. The daily quota counts what was paid for.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil } from '@atelier/testing';
import { startChaosPlatform, type ChaosPlatform } from './chaos-platform.js';

let chaos: ChaosPlatform;
beforeAll(async () => {
  chaos = await startChaosPlatform({ workers: 1, jobsEnv: { QUOTA_DAILY_LIMIT: '3', QUOTA_MAX_IN_FLIGHT: '5' } });
});
afterAll(async () => {
  await chaos?.stop();
});

/** The mobile API as a user of this test's own: each has a quota of its own (3 a day here). */
const userApi = async (name: string) => chaos.api.as(await chaos.tokenFor(`${name}-${process.pid}`));

async function runningWithPrediction(jobId: string): Promise<string> {
  let predictionId: string | null = null;
  await waitUntil(async () => (predictionId = await chaos.recordedPrediction(jobId)) !== null, {
    what: 'the provider request is recorded',
    timeoutMs: 20_000,
  });
  return predictionId!;
}

describe('chaos - the vendor', () => {
  it('stalls for 20 s (SIGSTOP) while a prediction is polled: the job succeeds, charged once', async () => {
    const { api, platform } = chaos;
    const input = await api.uploadPhoto();
    const created = await api.createJob(await api.stylizeBody(input, 'a slow cat #sim-latency=3000'), 'vendor-stall');
    expect(created.status).toBe(201);
    const jobId = created.body.job.id;
    const predictionId = await runningWithPrediction(jobId);
    // Stalled while it computes, its input already fetched: a stall during the fetch outlasts the
    // vendor's own 10 s fetch timeout, and the prediction fails input_unreachable — another case
    // (a failed prediction, retried). On a busy machine the fetch was still under way (a red CI).
    await waitUntil(async () => (await chaos.prediction(predictionId)).status === 'processing', {
      what: 'the vendor to have fetched the input',
      timeoutMs: 10_000,
    });
    platform.provider!.pause();
    await sleep(20_000);
    platform.provider!.resume();
    const job = await api.waitTerminal(jobId, 60_000);
    expect(job.status).toBe('succeeded');
    // Waited out within its one attempt, on its one prediction: not a second attempt, and not a
    // resubmission the vendor would have answered with the same prediction (charged once all the same).
    expect(job.attempts.count, await chaos.jobStory(jobId)).toBe(1);
    expect(await chaos.recordedPrediction(jobId)).toBe(predictionId);
    expect(await chaos.vendorRequests(jobId)).toBe(1);
    expect(await chaos.charges(jobId)).toBe(1);
  });
});

describe('chaos - cancel and progress off the lease', () => {
  it('a running cancel reaches the vendor within a second', async () => {
    const { api } = chaos;
    const input = await api.uploadPhoto();
    const created = await api.createJob(await api.stylizeBody(input, 'a long one #sim-latency=30000'), 'cancel-running');
    const jobId = created.body.job.id;
    const predictionId = await runningWithPrediction(jobId);
    // The clock starts when the cancel is sent: the second covers its answer's way too.
    const cancelSentAt = Date.now();
    const cancelled = await api.call('POST', `/api/v1/creation/jobs/${jobId}/cancel`);
    expect(cancelled.status).toBe(200);
    await waitUntil(async () => (await chaos.prediction(predictionId)).status === 'canceled', {
      what: 'the vendor prediction is canceled',
      timeoutMs: 5_000,
      intervalMs: 20,
    });
    const prediction = await chaos.prediction(predictionId);
    expect(Date.parse(prediction.completed_at!) - cancelSentAt).toBeLessThan(1_000);
    expect((await api.getJob(jobId)).status).toBe('cancelled');
    expect(await chaos.charges(jobId)).toBe(1);
  });

  it('a cancel after the worker died (SIGKILL) still cancels the prediction at the vendor', async () => {
    const { platform } = chaos;
    const api = await userApi('crash-cancel');
    const input = await api.uploadPhoto();
    const created = await api.createJob(await api.stylizeBody(input, 'a long one #sim-latency=30000'), 'cancel-after-crash');
    const jobId = created.body.job.id;
    const predictionId = await runningWithPrediction(jobId);
    await platform.workers[0]!.kill();
    // The job still runs under the dead worker's lease: no live worker holds its prediction.
    expect((await api.getJob(jobId)).status).toBe('running');
    await platform.startWorker();
    const cancelSentAt = Date.now();
    const cancelled = await api.call('POST', `/api/v1/creation/jobs/${jobId}/cancel`);
    expect(cancelled.status).toBe(200);
    await waitUntil(async () => (await chaos.prediction(predictionId)).status === 'canceled', {
      what: 'the vendor prediction is canceled',
      timeoutMs: 10_000,
      intervalMs: 20,
    });
    expect(Date.parse((await chaos.prediction(predictionId)).completed_at!) - cancelSentAt).toBeLessThan(1_000);
    expect(await chaos.charges(jobId)).toBe(1);
  });

  it('a 6 s job shows at least three intermediate progress values over Server-Sent Events', async () => {
    const api = await userApi('progress');
    const input = await api.uploadPhoto();
    const created = await api.createJob(await api.stylizeBody(input, 'six seconds #sim-latency=6000'), 'progress-6s');
    const events = await api.readEvents(created.body.job.id);
    expect(events.status).toBe(200);
    expect(events.jobs.at(-1)!.status).toBe('succeeded');
    const intermediate = new Set(
      events.jobs.filter((job) => job.status === 'running' && job.progress > 0 && job.progress < 100).map((job) => job.progress),
    );
    expect(intermediate.size, JSON.stringify(events.jobs.map((job) => [job.status, job.progress]))).toBeGreaterThanOrEqual(3);
  });
});

describe('chaos - the daily quota counts what was paid', () => {
  it('charged-then-cancelled jobs count, queued-then-cancelled ones do not', async () => {
    const { platform } = chaos;
    const api = await userApi('quota');
    const input = await api.uploadPhoto();
    const body = (key: string) => api.stylizeBody(input, `${key} #sim-latency=30000`);

    const paid = (await api.createJob(await body('paid'), 'paid')).body.job.id;
    await runningWithPrediction(paid);
    expect((await api.call('POST', `/api/v1/creation/jobs/${paid}/cancel`)).status).toBe(200);

    await platform.stopWorkers(); // nothing claims the next one: it is cancelled while queued
    const free = await api.createJob(await body('free'), 'free');
    expect(free.body.job.status).toBe('queued');
    expect((await api.call('POST', `/api/v1/creation/jobs/${free.body.job.id}/cancel`)).status).toBe(200);
    expect(await chaos.charges(free.body.job.id)).toBe(0);
    await platform.startWorker();

    // The limit is 3: the paid cancel uses one, the free one none — two more fit, a third is refused.
    expect((await api.createJob(await body('second'), 'second')).status).toBe(201);
    expect((await api.createJob(await body('third'), 'third')).status).toBe(201);
    const refused = await api.createJob(await body('fourth'), 'fourth');
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ error: { code: 42900 } });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

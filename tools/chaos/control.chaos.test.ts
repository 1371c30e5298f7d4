// Cancel and progress travel beside the lease, not on its heartbeat (every 20 s by default): a
// cancel reaches the vendor within a second — also when no worker is alive to hear it — and the
// app sees progress as it moves.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil } from '@atelier/testing';
import { startChaosPlatform, type ChaosPlatform } from './chaos-platform.js';

let chaos: ChaosPlatform;
beforeAll(async () => {
  chaos = await startChaosPlatform({ workers: 1 });
});
afterAll(async () => {
  await chaos?.stop();
});

async function runningWithPrediction(jobId: string): Promise<string> {
  let predictionId: string | null = null;
  await waitUntil(async () => (predictionId = await chaos.recordedPrediction(jobId)) !== null, {
    what: 'the provider request is recorded',
    timeoutMs: 20_000,
  });
  return predictionId!;
}

describe('chaos - cancel and progress off the lease', () => {
  it('a running cancel reaches the vendor within a second', async () => {
    const { api } = chaos;
    const input = await api.uploadPhoto();
    const created = await api.createJob(await api.stylizeBody(input, 'a long one #sim-latency=30000'), 'cancel-running');
    const jobId = created.body.job.id;
    const predictionId = await runningWithPrediction(jobId);
    const cancelled = await api.call('POST', `/api/v1/creation/jobs/${jobId}/cancel`);
    const cancelledAt = Date.now();
    expect(cancelled.status).toBe(200);
    await waitUntil(async () => (await chaos.prediction(predictionId)).status === 'canceled', {
      what: 'the vendor prediction is canceled',
      timeoutMs: 5_000,
      intervalMs: 20,
    });
    const prediction = await chaos.prediction(predictionId);
    expect(Date.parse(prediction.completed_at!) - cancelledAt).toBeLessThan(1_000);
    expect((await api.getJob(jobId)).status).toBe('cancelled');
    expect(await chaos.charges(jobId)).toBe(1);
  });

  it('a cancel after the worker died (SIGKILL) still cancels the prediction at the vendor', async () => {
    const { api, platform } = chaos;
    const input = await api.uploadPhoto();
    const created = await api.createJob(await api.stylizeBody(input, 'a long one #sim-latency=30000'), 'cancel-after-crash');
    const jobId = created.body.job.id;
    const predictionId = await runningWithPrediction(jobId);
    await platform.workers[0]!.kill();
    // The job still runs under the dead worker's lease: no live worker holds its prediction.
    expect((await api.getJob(jobId)).status).toBe('running');
    await platform.startWorker();
    const cancelled = await api.call('POST', `/api/v1/creation/jobs/${jobId}/cancel`);
    const cancelledAt = Date.now();
    expect(cancelled.status).toBe(200);
    await waitUntil(async () => (await chaos.prediction(predictionId)).status === 'canceled', {
      what: 'the vendor prediction is canceled',
      timeoutMs: 10_000,
      intervalMs: 20,
    });
    expect(Date.parse((await chaos.prediction(predictionId)).completed_at!) - cancelledAt).toBeLessThan(1_000);
    expect(await chaos.charges(jobId)).toBe(1);
  });

  it('a 6 s job shows at least three intermediate progress values over Server-Sent Events', async () => {
    const { api } = chaos;
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

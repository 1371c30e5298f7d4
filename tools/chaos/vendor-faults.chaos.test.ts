// The vendor misbehaves: it stalls, answers 5xx while a prediction runs, or is asked to cancel.
// Whatever happens, a job is charged once and a cancel reaches the vendor within a second.
import { setTimeout as sleep } from 'node:timers/promises';
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

describe('chaos - the vendor', () => {
  it('stalls for 20 s (SIGSTOP) while a prediction is polled: the job succeeds, charged once', async () => {
    const { api, platform } = chaos;
    const input = await api.uploadPhoto();
    const created = await api.createJob(await api.stylizeBody(input, 'a slow cat #sim-latency=3000'), 'vendor-stall');
    expect(created.status).toBe(201);
    const jobId = created.body.job.id;
    await waitUntil(async () => (await chaos.recordedPrediction(jobId)) !== null, { what: 'the prediction is recorded' });
    platform.provider!.pause();
    await sleep(20_000);
    platform.provider!.resume();
    const job = await api.waitTerminal(jobId, 60_000);
    expect(job.status).toBe('succeeded');
    expect(await chaos.charges(jobId)).toBe(1);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobsDispatchGatesV1, jobsV1 } from '@atelier/contracts';
import type { PromiseClient } from '@atelier/grpc';
import { testClient, type ServiceProcess, TEST_OPERATOR_ACTOR } from '@atelier/testing';
import {
  chargedFor,
  providerStats,
  startPlatform,
  stylizeRequest,
  uploadInput,
  waitForJob,
  type Platform,
} from './test-support/platform-harness.js';

/**
 * The vendor's own limits, shared by every worker (docs/budgets-and-limits.md), with two worker
 * processes against a simulator that caps our account at 3 open predictions and answers one more
 * with 429 and Retry-After, as vendors do.
 */

let p: Platform;
let gates: PromiseClient<jobsDispatchGatesV1.ProviderDispatchServiceClient>;
let workers: ServiceProcess[];

interface OpenStats extends Awaited<ReturnType<typeof providerStats>> {
  open_predictions: { now: number; max: number };
}

beforeAll(async () => {
  p = await startPlatform({
    providerEnv: { PROVIDER_SIM_LATENCY_MS: '500', PROVIDER_SIM_MAX_OPEN_PREDICTIONS: '3', PROVIDER_SIM_RETRY_AFTER_SECONDS: '1' },
    workerEnv: { WORKER_CONCURRENCY_INTERACTIVE: '8' },
  });
  gates = await testClient(jobsDispatchGatesV1.ProviderDispatchServiceClient, p.processes.jobs.address, 'gateway', {
    defaultDeadlineMs: 15_000,
  });
  workers = [await p.startWorker(), await p.startWorker()];
}, 180_000);

afterAll(async () => {
  gates?.close();
  await p?.stop();
});

let seq = 0;
const openStats = async () => (await providerStats(p)) as unknown as OpenStats;

async function burst(count: number, prompt: string): Promise<jobsV1.Job[]> {
  const user = `gates-user-${process.pid}-${++seq}`;
  const input = await uploadInput(p.media, user);
  const created = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const { job } = await p.jobs.createJob(await stylizeRequest(p, user, input.assetId, prompt, `gates-${seq}-${i}`));
      return job!;
    }),
  );
  return Promise.all(created.map((job) => waitForJob(p, job.id, user, { timeoutMs: 90_000 })));
}

/** A counter's or histogram sum's total over its series, from a worker's /metrics. */
async function metricTotal(worker: ServiceProcess, name: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${worker.port}/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

describe('provider gates - the vendor’s limits across two workers', () => {
  it('with a cap of 3 concurrent predictions, a burst of 20 jobs never has more than 3 open at the simulator, and each runs once', async () => {
    await gates.setProviderLimit({
      actor: TEST_OPERATOR_ACTOR,
      providerCode: 'sim',
      providerModel: '',
      maxConcurrent: 3,
      operatorId: 'test-admin',
    });
    const done = await burst(20, 'gated burst');
    expect(done.map((job) => job.status)).toEqual(Array(20).fill(jobsV1.JobStatus.SUCCEEDED));
    const stats = await openStats();
    expect(stats.open_predictions.max).toBeLessThanOrEqual(3);
    expect(stats.open_predictions.max).toBe(3);
    for (const job of done) {
      expect(chargedFor(stats, job.id)).toBe(1);
      // Never refused by the vendor: our cap kept us under its own.
      expect(stats.by_key[job.id]).toEqual({ submissions: 1, requests: 1 });
      expect(job.attemptCount).toBe(1);
    }
    // Both workers were held back by the cap at some point (their dispatches handed back).
    for (const worker of workers) expect(await metricTotal(worker, 'atelier_worker_claims_paused_total')).toBeGreaterThan(0);
    const { limits } = await gates.listProviderLimits({});
    expect(limits).toEqual([expect.objectContaining({ providerCode: 'sim', maxConcurrent: 3, running: 0 })]);
  }, 120_000);

  it('a simulator answering 429 with Retry-After slows both workers, and every job still succeeds once', async () => {
    await gates.deleteProviderLimit({ actor: TEST_OPERATOR_ACTOR, providerCode: 'sim', providerModel: '' });
    const refusedBefore = Object.values((await openStats()).by_key).reduce((sum, key) => sum + key.requests - key.submissions, 0);
    const done = await burst(12, 'throttled burst');
    expect(done.map((job) => job.status)).toEqual(Array(12).fill(jobsV1.JobStatus.SUCCEEDED));
    const stats = await openStats();
    const refused = Object.values(stats.by_key).reduce((sum, key) => sum + key.requests - key.submissions, 0) - refusedBefore;
    // The vendor refused some submits (16 slots for its 3), and no job paid twice or failed an attempt for it.
    expect(refused).toBeGreaterThan(0);
    for (const job of done) {
      expect(chargedFor(stats, job.id)).toBe(1);
      expect(job.attemptCount).toBe(1);
    }
    const { rows } = await p.db.query(`SELECT last_retry_after_ms FROM jobs.provider_gate_state WHERE provider_code = 'sim'`);
    expect(rows).toEqual([{ last_retry_after_ms: 1_000 }]);
    // Every pod waited out the vendor's Retry-After: both spent time waiting for permits. How much
    // each waited depends on when its claims met the pause (one may have met its last tenths on a
    // loaded machine); together they waited a good part of the vendor's second.
    const waited = await Promise.all(workers.map((worker) => metricTotal(worker, 'atelier_worker_provider_permit_wait_seconds_sum')));
    for (const seconds of waited) expect(seconds).toBeGreaterThan(0);
    expect(waited.reduce((sum, seconds) => sum + seconds, 0)).toBeGreaterThan(0.3);
  }, 120_000);
});

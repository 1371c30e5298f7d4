import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enumWords, jobsUsageV1, jobsV1 } from '@atelier/contracts';
import type { PromiseClient } from '@atelier/grpc';
import { testClient, waitUntil } from '@atelier/testing';
import { startPlatform, stylizeRequest, uploadInput, waitForJob, type Platform } from './test-support/platform-harness.js';

/**
 * The usage ledger against the real platform (jobs, catalog, media, provider-sim, a worker
 * process): every call the worker made is a row, and the rows match the simulator's own count of
 * the calls it received, kind by kind.
 */
type CallCounts = { submit: number; poll: number; cancel: number; output_fetch: number };
interface SimCalls {
  total: CallCounts;
  by_prediction: Record<string, CallCounts>;
  submits_by_key: Record<string, number>;
}

const KINDS = enumWords(jobsUsageV1.ProviderCallKind);
const OUTCOMES = enumWords(jobsUsageV1.ProviderCallOutcome);
/** The seeded price of the simulator's models: 0.0023 USD per predict second. */
const MICROS_PER_SECOND = 2300;

let p: Platform;
let usage: PromiseClient<jobsUsageV1.ProviderUsageServiceClient>;

beforeAll(async () => {
  p = await startPlatform({ workerEnv: { WORKER_CONCURRENCY_INTERACTIVE: '4' } });
  // The cap makes a slow prediction outlive its first attempt in seconds.
  await p.startWorker({ WORKER_TIMEOUT_CAP_MS: '4000' });
  usage = await testClient(jobsUsageV1.ProviderUsageServiceClient, p.processes.jobs.address, 'gateway', { defaultDeadlineMs: 15_000 });
}, 120_000);

afterAll(async () => {
  usage?.close();
  await p?.stop();
});

let seq = 0;
const newUser = () => `ledger-user-${process.pid}-${++seq}`;

async function createStylize(userId: string, prompt: string) {
  const { assetId } = await uploadInput(p.media, userId);
  return (await p.jobs.createJob(await stylizeRequest(p, userId, assetId, prompt, `k-${++seq}`))).job!;
}

const simCalls = async (): Promise<SimCalls> => ((await (await fetch(`${p.providerUrl}/v1/stats`)).json()) as { calls: SimCalls }).calls;

/** The ledger's rows of a job, counted per kind (only rows of `predictionId` for the prediction's calls). */
function ledgerCounts(calls: jobsUsageV1.ProviderCall[], filter: (call: jobsUsageV1.ProviderCall) => boolean = () => true) {
  const counts: CallCounts = { submit: 0, poll: 0, cancel: 0, output_fetch: 0 };
  for (const call of calls.filter(filter)) counts[KINDS.wordOf(call.callKind) as keyof CallCounts] += 1;
  return counts;
}

/** What the simulator counted for a job: submits under its Idempotency-Key, the rest under its prediction. */
function simCounts(sim: SimCalls, key: string, predictionId: string): CallCounts {
  const ofPrediction = sim.by_prediction[predictionId] ?? { submit: 0, poll: 0, cancel: 0, output_fetch: 0 };
  return { ...ofPrediction, submit: sim.submits_by_key[key] ?? 0 };
}

describe('usage ledger - against the simulator', () => {
  it("records a job's every call: its rows match the simulator's own count of each kind exactly, with one bill at the seeded price", async () => {
    const user = newUser();
    const job = await createStylize(user, 'my dog as pop art #sim-latency=700');
    const done = await waitForJob(p, job.id, user);
    expect(done.status).toBe(jobsV1.JobStatus.SUCCEEDED);
    // Recorded before CompleteJob: nothing to wait for once the job succeeded.
    const { calls, cost, billablePredictions } = await usage.listJobProviderCalls({ jobId: job.id });
    const sim = await simCalls();
    const predictionId = (await p.admin.getJobDetails({ jobId: job.id })).job!.providerRequestId!;

    expect(ledgerCounts(calls)).toEqual(simCounts(sim, job.id, predictionId));
    expect(ledgerCounts(calls)).toMatchObject({ submit: 1, cancel: 0, output_fetch: 1 });
    expect(calls.every((call) => OUTCOMES.wordOf(call.outcome) === 'ok' && call.attempt === 1)).toBe(true);
    expect(calls.every((call) => call.credentialMode === 'platform_key' && /^platform:[0-9a-f]{12}$/.test(call.credentialId))).toBe(true);
    expect(
      calls.filter((call) => call.callKind !== jobsUsageV1.ProviderCallKind.SUBMIT).every((call) => call.vendorId === predictionId),
    ).toBe(true);

    const billed = calls.filter((call) => call.billable);
    expect(billablePredictions).toBe(1);
    expect(billed).toHaveLength(1);
    expect(billed[0]).toMatchObject({ callKind: jobsUsageV1.ProviderCallKind.POLL, images: 1, currency: 'USD' });
    const predictTimeMs = billed[0]!.predictTimeMs!;
    expect(predictTimeMs).toBeGreaterThanOrEqual(690);
    expect(cost).toEqual([{ currency: 'USD', costMicros: Math.round((predictTimeMs * MICROS_PER_SECOND) / 1000) }]);
  });

  it("records the cancels of a cancelled job — the runner's and the provider-cancel task's — as the simulator counts them", async () => {
    const user = newUser();
    const job = await createStylize(user, 'a cat that never finishes #sim:hang');
    await waitForJob(p, job.id, user, { until: (j) => j.status === jobsV1.JobStatus.RUNNING && j.progress > 0 });
    const predictionId = (await p.admin.getJobDetails({ jobId: job.id })).job!.providerRequestId!;
    await p.jobs.cancelJob({ jobId: job.id, userId: user });
    await waitForJob(p, job.id, user);
    // The cancel task runs after the job ended: wait for the simulator and the ledger to agree.
    let ledger: jobsUsageV1.ProviderCall[] = [];
    await waitUntil(
      async () => {
        ledger = (await usage.listJobProviderCalls({ jobId: job.id })).calls;
        const sim = simCounts(await simCalls(), job.id, predictionId);
        return sim.cancel > 0 && JSON.stringify(ledgerCounts(ledger)) === JSON.stringify(sim);
      },
      { timeoutMs: 15_000, what: 'the ledger to hold every call the simulator counted' },
    );
    const cancels = ledger.filter((call) => call.callKind === jobsUsageV1.ProviderCallKind.CANCEL);
    expect(cancels.every((call) => call.vendorId === predictionId && call.providerModel !== '')).toBe(true);
  });

  it('gives a stalled prediction ridden out over two attempts and retried polls exactly one billable row and one cost', async () => {
    const user = newUser();
    // The vendor answers 503 to the first polls, and the prediction outlives the first attempt's 4 s.
    const job = await createStylize(user, 'a slow tortoise #sim-latency=6000 #sim-flaky=2');
    const done = await waitForJob(p, job.id, user, { timeoutMs: 60_000 });
    expect(done).toMatchObject({ status: jobsV1.JobStatus.SUCCEEDED, attemptCount: 2 });
    const { calls, cost, billablePredictions } = await usage.listJobProviderCalls({ jobId: job.id });
    const sim = await simCalls();
    const predictionId = (await p.admin.getJobDetails({ jobId: job.id })).job!.providerRequestId!;

    expect(new Set(calls.map((call) => call.attempt))).toEqual(new Set([1, 2]));
    expect(calls.filter((call) => OUTCOMES.wordOf(call.outcome) === 'unavailable').map((call) => call.httpStatus)).toEqual([
      503, 503, 503, 503,
    ]);
    expect(billablePredictions).toBe(1);
    expect(cost).toHaveLength(1);
    const billed = calls.filter((call) => call.billable);
    expect(billed).toHaveLength(1);
    expect(billed[0]!.vendorId).toBe(predictionId);
    expect(cost[0]!.costMicros).toBe(Math.round((billed[0]!.predictTimeMs! * MICROS_PER_SECOND) / 1000));
    // One prediction paid for at the vendor, submitted once.
    expect(simCounts(sim, job.id, predictionId).submit).toBe(1);
    expect(ledgerCounts(calls).submit).toBe(1);
    // A poll the timeout cut off may or may not have reached the vendor: the rest match exactly.
    const answered = ledgerCounts(calls, (call) => OUTCOMES.wordOf(call.outcome) !== 'aborted');
    const simPolls = simCounts(sim, job.id, predictionId).poll;
    expect(simPolls).toBeGreaterThanOrEqual(answered.poll);
    expect(simPolls).toBeLessThanOrEqual(ledgerCounts(calls).poll);
    expect(answered.output_fetch).toBe(simCounts(sim, job.id, predictionId).output_fetch);
  });
});

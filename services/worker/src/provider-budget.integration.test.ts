import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commonV1, jobsDispatchGatesV1, jobsV1 } from '@atelier/contracts';
import type { PromiseClient } from '@atelier/grpc';
import { testClient, TEST_OPERATOR_ACTOR } from '@atelier/testing';
import { providerStats, startPlatform, stylizeRequest, uploadInput, waitForJob, type Platform } from './test-support/platform-harness.js';

/**
 * A daily budget crossed mid-burst (docs/budgets-and-limits.md), with two workers. The spend is
 * what the usage ledger says: the model is priced 1 000 micros an image (and nothing per predict
 * second), so each prediction bills exactly 1 000 when the vendor reports its units. The budget is
 * 3 000.
 */

const UNIT_MICROS = 1_000;
const BUDGET_MICROS = 3_000;
const CAP = 2;

let p: Platform;
let gates: PromiseClient<jobsDispatchGatesV1.ProviderDispatchServiceClient>;

beforeAll(async () => {
  p = await startPlatform({ providerEnv: { PROVIDER_SIM_LATENCY_MS: '400' }, workerEnv: { WORKER_CONCURRENCY_INTERACTIVE: '8' } });
  gates = await testClient(jobsDispatchGatesV1.ProviderDispatchServiceClient, p.processes.jobs.address, 'gateway', {
    defaultDeadlineMs: 15_000,
  });
  // Every prediction from now on costs exactly one image's price: no predict-time part.
  const { models } = await p.catalog.getCatalog({ mediaKind: commonV1.MediaKind.IMAGE });
  const modelId = models.find((m) => m.jobType === 'image.stylize')!.id;
  await p.catalog.setModelPrice({ actor: TEST_OPERATOR_ACTOR, modelId, unit: 'predict_second', unitPriceMicros: 0, currency: 'USD' });
  await p.catalog.setModelPrice({ actor: TEST_OPERATOR_ACTOR, modelId, unit: 'image', unitPriceMicros: UNIT_MICROS, currency: 'USD' });
  // jobs prices a call from its catalog cache, which the change notice clears.
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  await p.startWorker();
  await p.startWorker();
}, 180_000);

afterAll(async () => {
  gates?.close();
  await p?.stop();
});

const user = `budget-user-${process.pid}`;
let seq = 0;

async function create(inputAssetId: string): Promise<jobsV1.Job> {
  const { job } = await p.jobs.createJob(await stylizeRequest(p, user, inputAssetId, 'budget burst', `budget-${++seq}`));
  return job!;
}

const predictionsTotal = async () => (await providerStats(p)).predictions_total;
const statusOf = async (jobId: string) => (await p.jobs.getJob({ jobId, userId: user })).job!;

describe('provider gates - a daily budget crossed mid-burst', () => {
  it('holds the rest back (queued, not charged), refuses new creates 503 until raised, then runs everything', async () => {
    await gates.setProviderLimit({
      actor: TEST_OPERATOR_ACTOR,
      providerCode: 'sim',
      providerModel: '',
      maxConcurrent: CAP,
      operatorId: 'test-admin',
    });
    await gates.setSpendBudget({
      actor: TEST_OPERATOR_ACTOR,
      providerCode: 'sim',
      providerModel: '',
      dailyLimitMicros: BUDGET_MICROS,
      currency: 'USD',
      operatorId: 'test-admin',
    });
    const input = await uploadInput(p.media, user);
    const before = await predictionsTotal();
    const burst = [];
    for (let i = 0; i < 10; i += 1) burst.push(await create(input.assetId));

    // The budget is crossed after the third job: the jobs in flight then (at most the cap) finish.
    const deadline = Date.now() + 30_000;
    for (;;) {
      const { budgets } = await gates.listSpendBudgets({});
      if (budgets[0]!.spentTodayMicros >= BUDGET_MICROS) break;
      if (Date.now() > deadline) throw new Error(`the budget was not reached: ${JSON.stringify(budgets)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // Long enough for anything still admitted to run, and for held-back dispatches to come back.
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    const charged = (await predictionsTotal()) - before;
    expect(charged).toBeGreaterThanOrEqual(BUDGET_MICROS / UNIT_MICROS);
    expect(charged).toBeLessThanOrEqual(BUDGET_MICROS / UNIT_MICROS + CAP - 1);
    const states = await Promise.all(burst.map((job) => statusOf(job.id)));
    const held = states.filter((job) => job.status === jobsV1.JobStatus.QUEUED);
    expect(held.length).toBe(10 - charged);
    for (const job of held) expect(job.attemptCount).toBe(0);
    const { budgets } = await gates.listSpendBudgets({});
    expect(budgets[0]!.usedRatio).toBeGreaterThanOrEqual(1);

    // New creates are refused while it is spent: UNAVAILABLE (the gateway's 503 50301), Retry-After to the next UTC day.
    const refused = await create(input.assetId).then(
      () => undefined,
      (error: unknown) => error as { code: string; reason?: string; retryAfterSeconds?: number },
    );
    expect(refused).toMatchObject({ code: 'UNAVAILABLE', reason: 'PROVIDER_BUDGET_EXHAUSTED' });
    const now = new Date();
    const toMidnight = (Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1) - now.getTime()) / 1000;
    expect(Math.abs(refused!.retryAfterSeconds! - toMidnight)).toBeLessThan(30);
    expect(await predictionsTotal()).toBe(before + charged);

    // An operator raises it: the held-back jobs run (each once), and creates are accepted again.
    await gates.setSpendBudget({
      actor: TEST_OPERATOR_ACTOR,
      providerCode: 'sim',
      providerModel: '',
      dailyLimitMicros: 1_000_000,
      currency: 'USD',
      operatorId: 'test-admin',
    });
    const late = await create(input.assetId);
    const done = await Promise.all([...burst, late].map((job) => waitForJob(p, job.id, user, { timeoutMs: 90_000 })));
    expect(done.map((job) => job.status)).toEqual(Array(11).fill(jobsV1.JobStatus.SUCCEEDED));
    for (const job of done) expect(job.attemptCount).toBe(1);
    expect((await predictionsTotal()) - before).toBe(11);
  }, 180_000);
});

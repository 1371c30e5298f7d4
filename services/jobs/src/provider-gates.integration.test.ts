import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobsDispatchGatesV1, jobsExecutionV1, jobsV1 } from '@atelier/contracts';
import { ErrorCode } from '@atelier/errors';
import { testClient, TEST_OPERATOR_ACTOR } from '@atelier/testing';
import { catalogChoice, refusal, startJobsHarness, uploadInputImage, type JobsHarness } from './test-support/jobs-harness.js';

/**
 * The provider gates through the jobs API (docs/budgets-and-limits.md): who may call
 * ProviderDispatchService, what it refuses, and a spent budget as creates and claims see it.
 * The statements are tested in db/transitions/gated-claim.integration.test.ts; the workers'
 * side in services/worker (provider-gates and provider-budget integration tests).
 */

let h: JobsHarness;
let choice: Awaited<ReturnType<typeof catalogChoice>>;

beforeAll(async () => {
  h = await startJobsHarness();
  choice = await catalogChoice(h.catalog);
}, 90_000);

afterAll(async () => {
  await h?.stop();
});

const gatesAs = (caller: string) =>
  testClient(jobsDispatchGatesV1.ProviderDispatchServiceClient, h.address, caller, { defaultDeadlineMs: 15_000 });

let seq = 0;
const newUser = () => `gates-${process.pid}-${++seq}`;

async function stylizeRequest(userId: string, key: string) {
  return jobsV1.CreateJobRequest.fromPartial({
    userId,
    idempotencyKey: key,
    jobType: 'image.stylize',
    modelId: choice.stylizer.id,
    styleId: choice.style.id,
    inputAssetId: await uploadInputImage(h.media, userId),
    prompt: 'my cat as a watercolour',
  });
}

describe('provider gates - who may call what', () => {
  it('lets workers take permits and report throttles only, the gateway and operators manage budgets and limits only', async () => {
    const [worker, gateway, ops, community] = await Promise.all([
      gatesAs('worker'),
      gatesAs('gateway'),
      gatesAs('ops'),
      gatesAs('community'),
    ]);
    try {
      await expect(worker.acquireProviderPermits({ providerCode: 'sim', wanted: 1, workerId: 'w-1' })).resolves.toMatchObject({
        granted: 1,
      });
      await expect(worker.listSpendBudgets({})).rejects.toMatchObject({ code: ErrorCode.PERMISSION_DENIED });
      await expect(
        worker.setSpendBudget({
          actor: TEST_OPERATOR_ACTOR,
          providerCode: 'sim',
          providerModel: '',
          dailyLimitMicros: 1,
          currency: 'USD',
          operatorId: 'x',
        }),
      ).rejects.toMatchObject({ code: ErrorCode.PERMISSION_DENIED });
      await expect(gateway.acquireProviderPermits({ providerCode: 'sim', wanted: 1, workerId: 'w-1' })).rejects.toMatchObject({
        code: ErrorCode.PERMISSION_DENIED,
      });
      await expect(gateway.reportProviderThrottle({ providerCode: 'sim', retryAfterMs: 1, workerId: 'w-1' })).rejects.toMatchObject({
        code: ErrorCode.PERMISSION_DENIED,
      });
      await expect(gateway.listProviderLimits({})).resolves.toBeDefined();
      await expect(ops.listSpendBudgets({})).resolves.toBeDefined();
      await expect(community.listSpendBudgets({})).rejects.toMatchObject({ code: ErrorCode.PERMISSION_DENIED });
    } finally {
      for (const client of [worker, gateway, ops, community]) client.close();
    }
  });
});

describe('provider gates - operators', () => {
  it('refuses bad input by field, and a missing budget or limit with NOT_FOUND', async () => {
    const gates = await gatesAs('gateway');
    try {
      const set = (overrides: Partial<jobsDispatchGatesV1.SetSpendBudgetRequest>) =>
        gates.setSpendBudget({
          actor: TEST_OPERATOR_ACTOR,
          providerCode: 'sim',
          providerModel: '',
          dailyLimitMicros: 10,
          currency: 'USD',
          operatorId: 'a',
          ...overrides,
        });
      expect(await refusal(set({ providerCode: 'Not A Code' }))).toMatchObject({ code: 'INVALID_ARGUMENT', field: 'provider_code' });
      expect(await refusal(set({ currency: 'usd' }))).toMatchObject({ code: 'INVALID_ARGUMENT', field: 'currency' });
      expect(await refusal(set({ dailyLimitMicros: -1 }))).toMatchObject({ code: 'INVALID_ARGUMENT', field: 'daily_limit_micros' });
      expect(await refusal(set({ operatorId: '' }))).toMatchObject({ code: 'INVALID_ARGUMENT', field: 'operator_id' });
      expect(
        await refusal(
          gates.setProviderLimit({
            actor: TEST_OPERATOR_ACTOR,
            providerCode: 'sim',
            providerModel: 'one-model',
            maxRequestsPerSecond: 5,
            operatorId: 'a',
          }),
        ),
      ).toMatchObject({ code: 'INVALID_ARGUMENT', field: 'max_requests_per_second' });
      expect(
        await refusal(
          gates.setProviderLimit({ actor: TEST_OPERATOR_ACTOR, providerCode: 'sim', providerModel: '', burst: 5, operatorId: 'a' }),
        ),
      ).toMatchObject({
        code: 'INVALID_ARGUMENT',
        field: 'burst',
      });
      expect(
        await refusal(gates.deleteSpendBudget({ actor: TEST_OPERATOR_ACTOR, providerCode: 'nothing', providerModel: '' })),
      ).toMatchObject({
        code: 'NOT_FOUND',
        reason: 'SPEND_BUDGET_NOT_FOUND',
      });
      expect(
        await refusal(gates.deleteProviderLimit({ actor: TEST_OPERATOR_ACTOR, providerCode: 'nothing', providerModel: '' })),
      ).toMatchObject({
        code: 'NOT_FOUND',
        reason: 'PROVIDER_LIMIT_NOT_FOUND',
      });
      const { limit } = await gates.setProviderLimit({
        actor: TEST_OPERATOR_ACTOR,
        providerCode: 'other',
        providerModel: '',
        maxConcurrent: 4,
        maxRequestsPerSecond: 2,
        operatorId: 'admin-7',
      });
      expect(limit).toMatchObject({
        providerCode: 'other',
        maxConcurrent: 4,
        maxRequestsPerSecond: 2,
        burst: undefined,
        running: 0,
        updatedBy: 'admin-7',
      });
      await gates.deleteProviderLimit({ actor: TEST_OPERATOR_ACTOR, providerCode: 'other', providerModel: '' });
      expect((await gates.listProviderLimits({})).limits.filter((l) => l.providerCode === 'other')).toEqual([]);
    } finally {
      gates.close();
    }
  });
});

describe('provider gates - a spent budget', () => {
  it('refuses new creates UNAVAILABLE PROVIDER_BUDGET_EXHAUSTED, replays earlier ones, holds claims back, and opens when raised', async () => {
    const gates = await gatesAs('gateway');
    const provider = choice.stylizer.providerCode;
    try {
      const user = newUser();
      const before = await stylizeRequest(user, 'before');
      const { job: queued } = await h.jobs.createJob(before);
      const { budget } = await gates.setSpendBudget({
        actor: TEST_OPERATOR_ACTOR,
        providerCode: provider,
        providerModel: '',
        dailyLimitMicros: 0,
        currency: 'USD',
        operatorId: 'admin-1',
      });
      expect(budget).toMatchObject({ dailyLimitMicros: 0, spentTodayMicros: 0, usedRatio: 1, updatedBy: 'admin-1' });

      const refused = await refusal(h.jobs.createJob(await stylizeRequest(user, 'during')));
      expect(refused).toMatchObject({ code: 'UNAVAILABLE', reason: 'PROVIDER_BUDGET_EXHAUSTED' });
      expect(refused.retryAfterSeconds).toBeGreaterThan(0);
      expect(refused.retryAfterSeconds).toBeLessThanOrEqual(86_400);
      // The replay of a job created before is answered from its key.
      const replay = await h.jobs.createJob(before);
      expect(replay).toMatchObject({ created: false, job: { id: queued!.id } });

      const claim = await h.execution.claimJob({ jobId: queued!.id, workerId: 'worker-g' });
      expect(claim).toMatchObject({
        outcome: jobsExecutionV1.ClaimOutcome.PROVIDER_PAUSED,
        pauseReason: jobsExecutionV1.ProviderPauseReason.BUDGET,
      });
      expect(claim.notBefore!.getTime()).toBeGreaterThan(Date.now());
      expect((await h.jobs.getJob({ jobId: queued!.id, userId: user })).job).toMatchObject({
        status: jobsV1.JobStatus.QUEUED,
        attemptCount: 0,
      });
      // Operators see it wait: the provider's limits list the due jobs on our key and how long the oldest waited.
      await gates.setProviderLimit({
        actor: TEST_OPERATOR_ACTOR,
        providerCode: provider,
        providerModel: '',
        maxConcurrent: 10,
        operatorId: 'admin-1',
      });
      const waiting = (await gates.listProviderLimits({})).limits.find((l) => l.providerCode === provider)!;
      expect(waiting.waiting).toBeGreaterThanOrEqual(1);
      expect(waiting.oldestWaitingMs).toBeGreaterThan(0);
      await gates.deleteProviderLimit({ actor: TEST_OPERATOR_ACTOR, providerCode: provider, providerModel: '' });

      await gates.setSpendBudget({
        actor: TEST_OPERATOR_ACTOR,
        providerCode: provider,
        providerModel: '',
        dailyLimitMicros: 1_000_000,
        currency: 'USD',
        operatorId: 'admin-1',
      });
      expect((await h.execution.claimJob({ jobId: queued!.id, workerId: 'worker-g' })).outcome).toBe(jobsExecutionV1.ClaimOutcome.CLAIMED);
      await expect(h.jobs.createJob(await stylizeRequest(user, 'after'))).resolves.toMatchObject({ created: true });
    } finally {
      await gates.deleteSpendBudget({ actor: TEST_OPERATOR_ACTOR, providerCode: provider, providerModel: '' }).catch(() => {});
      gates.close();
    }
  });
});

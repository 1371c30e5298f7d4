import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { JobRow } from '../job-row.js';
import { writeBudgetWarnings } from '../budget-warning-sql.js';
import { redispatchStaleJobs } from '../outbox-sql.js';
import { budgetExhausted } from '../provider-gates-sql.js';
import { upsertProviderLimit, upsertSpendBudget } from '../provider-limits-sql.js';
import { acquirePermits, reportThrottle } from '../provider-permits-sql.js';
import { complete } from './complete-sql.js';
import { createJobs } from './create-sql.js';
import { gatedClaim, isPaused, type ClaimResult } from './gated-claim.js';
import { nextUtcDay } from '../../domain/provider-gates.js';
import { suiteJobsPool, testOutboxSubjects } from '../../test-support/jobs-database.js';
import { newCanaryJob } from '../../test-support/new-job.js';
import { spendToday, type SpendOptions } from '../../test-support/spend.js';

/**
 * The provider gates at the statements that keep them (docs/budgets-and-limits.md): the claim's
 * budget, concurrency cap and vendor throttle, the shared request-rate bucket, the once-a-day
 * warning. Spend is made by writing ledger rows with a cost (what the ledger's writer does).
 */

const pool = suiteJobsPool();
const subjects = testOutboxSubjects();

const newProvider = () => `gp-${randomBytes(4).toString('hex')}`;

async function createdFor(provider: string, count: number, model = 'model-a'): Promise<JobRow[]> {
  const jobs = Array.from({ length: count }, () =>
    newCanaryJob({ modelId: randomUUID(), providerCode: provider, providerModel: model, modelVersion: 'v1' }),
  );
  const outcomes = await createJobs(
    pool,
    jobs,
    jobs.map(() => 'test'),
    subjects,
  );
  return outcomes.map((outcome) => outcome.job!);
}

const claimAll = (jobs: readonly JobRow[], workerId = 'worker-a') =>
  gatedClaim(
    pool,
    jobs.map((job) => ({ jobId: job.id, workerId })),
    60_000,
  );

const claimedCount = (results: readonly ClaimResult[]) => results.filter((result) => result.changed).length;
const pausedReasons = (results: readonly ClaimResult[]) => results.filter(isPaused).map((result) => result.paused.reason);

const spend = (provider: string, micros: number, options?: SpendOptions) => spendToday(pool, provider, micros, options);

const budget = (provider: string, dailyLimitMicros: number, providerModel = '') =>
  upsertSpendBudget(pool, { providerCode: provider, providerModel, dailyLimitMicros, currency: 'USD', updatedBy: 'test-admin' });

async function status(jobId: string): Promise<Pick<JobRow, 'status' | 'attempt_count'>> {
  return (await pool.query<JobRow>('SELECT status, attempt_count FROM jobs.generation_jobs WHERE id = $1', [jobId])).rows[0]!;
}

describe('provider gates - claim without gates', () => {
  it('claims a provider without budget, cap or throttle as always', async () => {
    const provider = newProvider();
    const results = await claimAll(await createdFor(provider, 3));
    expect(claimedCount(results)).toBe(3);
  });
});

describe('provider gates - concurrency cap', () => {
  it('never lets two concurrent claim batches take more than the cap, and a freed slot is taken again', async () => {
    const provider = newProvider();
    await upsertProviderLimit(pool, {
      providerCode: provider,
      providerModel: '',
      maxConcurrent: 3,
      maxRequestsPerSecond: null,
      burst: null,
      updatedBy: 'test-admin',
    });
    const jobs = await createdFor(provider, 10);
    const batches = await Promise.all([claimAll(jobs.slice(0, 5), 'worker-a'), claimAll(jobs.slice(5), 'worker-b')]);
    const results = batches.flat();
    expect(claimedCount(results)).toBe(3);
    expect(pausedReasons(results)).toEqual(Array(7).fill('concurrency'));
    // Held back: still queued, no attempt counted.
    const held = jobs.filter((_job, i) => isPaused(results[i]!));
    for (const job of held) expect(await status(job.id)).toEqual({ status: 'queued', attempt_count: 0 });

    const running = results.flatMap((result) => (result.changed ? [result.job] : []));
    await complete(
      pool,
      [{ jobId: running[0]!.id, workerId: running[0]!.lease_owner!, outputAssetId: null, outputOwnerId: null }],
      subjects,
    );
    const again = await claimAll(held);
    expect(claimedCount(again)).toBe(1);
  });

  it('caps one model without holding back the provider’s other models', async () => {
    const provider = newProvider();
    await upsertProviderLimit(pool, {
      providerCode: provider,
      providerModel: 'model-a',
      maxConcurrent: 1,
      maxRequestsPerSecond: null,
      burst: null,
      updatedBy: 'test-admin',
    });
    const capped = await claimAll(await createdFor(provider, 3, 'model-a'));
    const free = await claimAll(await createdFor(provider, 3, 'model-b'));
    expect([claimedCount(capped), claimedCount(free)]).toEqual([1, 3]);
  });

  it('answers a batch mixing capped and free providers in request order, the free ones claimed as always', async () => {
    const [capped, free] = [newProvider(), newProvider()];
    await upsertProviderLimit(pool, {
      providerCode: capped,
      providerModel: '',
      maxConcurrent: 1,
      maxRequestsPerSecond: null,
      burst: null,
      updatedBy: 'test-admin',
    });
    const [cappedJobs, freeJobs] = await Promise.all([createdFor(capped, 2), createdFor(free, 2)]);
    const interleaved = [cappedJobs[0]!, freeJobs[0]!, cappedJobs[1]!, freeJobs[1]!];
    const results = await claimAll(interleaved);
    expect(results.map((result) => (isPaused(result) ? 'paused' : result.changed ? 'claimed' : 'refused'))).toEqual([
      'claimed',
      'claimed',
      'paused',
      'claimed',
    ]);
    results.forEach((result, i) => {
      if (result.changed) expect(result.job.id).toBe(interleaved[i]!.id);
    });
  });
});

describe('provider gates - daily budget', () => {
  it('holds back claims once today’s platform-key spend reaches the budget, until the limit is raised', async () => {
    const provider = newProvider();
    await budget(provider, 1_000);
    await spend(provider, 600);
    // A user's own key is not charged to our budget.
    await spend(provider, 5_000, { mode: 'user_key' });
    expect(await budgetExhausted(pool, provider, 'model-a')).toBe(false);
    expect(claimedCount(await claimAll(await createdFor(provider, 1)))).toBe(1);

    await spend(provider, 400);
    expect(await budgetExhausted(pool, provider, 'model-a')).toBe(true);
    const jobs = await createdFor(provider, 4);
    const held = await claimAll(jobs);
    expect(pausedReasons(held)).toEqual(Array(4).fill('budget'));
    const [first] = held.filter(isPaused);
    expect(first!.paused.notBefore).toEqual(nextUtcDay(new Date()));
    for (const job of jobs) expect(await status(job.id)).toEqual({ status: 'queued', attempt_count: 0 });

    // The stale-dispatch sweep leaves held jobs alone: they are handed back, not lost.
    await pool.query(`UPDATE jobs.generation_jobs SET next_attempt_at = now() - interval '1 hour' WHERE id = ANY($1::uuid[])`, [
      jobs.map((job) => job.id),
    ]);
    await pool.query(
      `UPDATE jobs.outbox SET status = 'published', published_at = now() - interval '1 hour' WHERE aggregate_id = ANY($1::uuid[])`,
      [jobs.map((job) => job.id)],
    );
    const redispatched = await redispatchStaleJobs(pool, 60_000, 500, subjects);
    expect(redispatched.filter((id) => jobs.some((job) => job.id === id))).toEqual([]);

    await budget(provider, 2_000);
    expect(await budgetExhausted(pool, provider, 'model-a')).toBe(false);
    expect(claimedCount(await claimAll(jobs))).toBe(4);
  });

  it('a model’s budget holds back that model only', async () => {
    const provider = newProvider();
    await budget(provider, 100, 'model-a');
    await spend(provider, 100, { model: 'model-a' });
    await spend(provider, 10_000, { model: 'model-b' });
    expect(pausedReasons(await claimAll(await createdFor(provider, 2, 'model-a')))).toEqual(['budget', 'budget']);
    expect(claimedCount(await claimAll(await createdFor(provider, 2, 'model-b')))).toBe(2);
  });

  it('warns once per budget per UTC day at 80 %, on the ops events (an outbox row)', async () => {
    const provider = newProvider();
    await budget(provider, 1_000);
    await spend(provider, 700);
    const mine = async () =>
      (await writeBudgetWarnings(pool, 't.ops.events.provider_budget_warning')).filter((w) => w.provider_code === provider);
    expect(await mine()).toEqual([]);
    await spend(provider, 100);
    expect(await mine()).toEqual([{ provider_code: provider, provider_model: '' }]);
    expect(await mine()).toEqual([]);
    const { rows } = await pool.query<{ subject: string; payload: Record<string, unknown> }>(
      `SELECT subject, payload FROM jobs.outbox WHERE event_type = 'provider.budget_warning' AND payload->>'provider' = $1`,
      [provider],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      subject: 't.ops.events.provider_budget_warning',
      payload: { provider, model: '', dailyLimitMicros: 1000, spentMicros: 800, currency: 'USD' },
    });
  });
});

describe('provider gates - vendor throttle and request rate', () => {
  it("a vendor's Retry-After holds back claims and permits of the provider for everyone until it passes", async () => {
    const provider = newProvider();
    const pausedUntil = await reportThrottle(pool, provider, 5_000);
    expect(pausedUntil.getTime() - Date.now()).toBeGreaterThan(4_000);
    // A shorter report never shortens it.
    expect((await reportThrottle(pool, provider, 1_000)).getTime()).toBe(pausedUntil.getTime());
    const jobs = await createdFor(provider, 2);
    const held = await claimAll(jobs);
    expect(pausedReasons(held)).toEqual(['vendor_throttled', 'vendor_throttled']);
    expect(held.filter(isPaused)[0]!.paused.notBefore.getTime()).toBe(pausedUntil.getTime());
    expect(await acquirePermits(pool, provider, 3)).toMatchObject({ granted: 0, pausedUntil });

    await pool.query(`UPDATE jobs.provider_gate_state SET paused_until = now() - interval '1 second' WHERE provider_code = $1`, [provider]);
    expect(claimedCount(await claimAll(jobs))).toBe(2);
    expect(await acquirePermits(pool, provider, 3)).toMatchObject({ granted: 3, unmeteredForMs: 1_000 });
  });

  it('grants at most the burst at once and then the rate, from one bucket for every asker', async () => {
    const provider = newProvider();
    await upsertProviderLimit(pool, {
      providerCode: provider,
      providerModel: '',
      maxConcurrent: null,
      maxRequestsPerSecond: 10,
      burst: 4,
      updatedBy: 'test-admin',
    });
    const first = await Promise.all([acquirePermits(pool, provider, 3), acquirePermits(pool, provider, 3)]);
    expect(first.reduce((sum, grant) => sum + grant.granted, 0)).toBe(4);
    const short = first.find((grant) => grant.granted < 3)!;
    expect(short.retryAfterMs).toBeGreaterThan(0);
    expect(short.retryAfterMs).toBeLessThanOrEqual(100);
    await new Promise((resolve) => setTimeout(resolve, 250));
    const later = await acquirePermits(pool, provider, 10);
    // 0.25 s at 10 a second: two whole permits (a little more for the time the statements took).
    expect(later.granted).toBeGreaterThanOrEqual(2);
    expect(later.granted).toBeLessThanOrEqual(4);
  });
});

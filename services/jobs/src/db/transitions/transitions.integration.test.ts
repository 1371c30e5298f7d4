import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import pg from 'pg';
import { uuidv7, type Queryable } from '@atelier/db';
import { UserRefKey } from '@atelier/outbox';
import { cancel } from './cancel-sql.js';
import { claim } from './claim-sql.js';
import { complete } from './complete-sql.js';
import { createJobs, createJobsWithinQuota, createJobWithinQuota, withinQuotaStatements, type NewJob } from './create-sql.js';
import { applyFailure, readFailingJob } from './fail-sql.js';
import { extendLeases } from './heartbeat-sql.js';
import { updateProgress } from './progress-sql.js';
import { updateProviderRequest } from './provider-request-sql.js';
import { release } from './release-sql.js';
import { suiteJobsPool, testOutboxSubjects } from '../../test-support/jobs-database.js';
import { newCanaryJob } from '../../test-support/new-job.js';
import { OUTBOX_COLUMNS_WITHOUT_STATISTICS } from '../migrations/0022-outbox-without-payload-statistics.js';

/**
 * The transition units against a real database: each answers its changed row, or — when its
 * condition did not hold — the job as its own statement found it, in one round trip (counted).
 */

const pool = suiteJobsPool();

/** A node of EXPLAIN (FORMAT JSON)'s plan, as far as these tests read it. */
interface PlanNode {
  'Subplan Name'?: string;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}
/** A quota batch of `jobs`, each by the actor 't'. */
const createBatch = (jobs: NewJob[], quota: Parameters<typeof createJobsWithinQuota>[3]) =>
  createJobsWithinQuota(
    pool,
    jobs,
    jobs.map(() => 't'),
    quota,
    subjects,
  );
const poolUrl = () => (pool as unknown as { options: { connectionString: string } }).options.connectionString;
const userRefKey = new UserRefKey(randomBytes(32).toString('hex'));
const subjects = testOutboxSubjects(userRefKey);

/** A Queryable that counts the statements sent through it. */
function counting(): Queryable & { statements: number } {
  const counter = {
    statements: 0,
    query: ((config: unknown, values?: unknown) => {
      counter.statements += 1;
      return pool.query(config as string, values as unknown[]);
    }) as Queryable['query'],
  };
  return counter;
}

const user = () => `transition-user-${randomBytes(4).toString('hex')}`;

function newJob(overrides: Partial<NewJob> = {}): NewJob {
  return newCanaryJob({ userId: user(), ...overrides });
}

async function created(overrides: Partial<NewJob> = {}) {
  const [outcome] = await createJobs(pool, [newJob(overrides)], ['test'], subjects);
  expect(outcome!.inserted).toBe(true);
  return outcome!.job!;
}

async function running(workerId = 'worker-a', overrides: Partial<NewJob> = {}) {
  const job = await created(overrides);
  const [result] = await claim(pool, [{ jobId: job.id, workerId }], 60_000);
  if (!result!.changed) throw new Error('claim failed');
  return result!.job;
}

describe('the transition trigger is the one table of legal moves', () => {
  it('accepts exactly the moves of SPEC §4.2 and refuses every other, terminal states included', async () => {
    const statuses = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const;
    // A job in each status, made by the transitions themselves.
    const queued = await created();
    const run = await running();
    const succeeded = await running();
    await complete(pool, [{ jobId: succeeded.id, workerId: 'worker-a', outputAssetId: null, outputOwnerId: null }], subjects);
    const failing = await running();
    await applyFailure(
      pool,
      {
        jobId: failing.id,
        workerId: 'worker-a',
        attempt: 1,
        failure: { errorClass: 'content_safety', errorCode: 'CONTENT_BLOCKED', publicMessage: 'no', internalMessage: '' },
        abandonProviderRequest: false,
      },
      { outcome: 'fail' },
      subjects,
    );
    const cancelledJob = await created();
    await cancel(pool, { jobId: cancelledJob.id, userId: cancelledJob.user_id, actor: 'user:test', nonCancellableTypes: [] }, subjects);
    const byStatus = { queued, running: run, succeeded, failed: failing, cancelled: cancelledJob };

    const allowedByTrigger: string[] = [];
    const client = await pool.connect();
    try {
      for (const from of statuses) {
        for (const to of statuses) {
          if (from === to) continue;
          await client.query('BEGIN');
          try {
            await client.query('UPDATE jobs.generation_jobs SET status = $2 WHERE id = $1', [byStatus[from].id, to]);
            allowedByTrigger.push(`${from}→${to}`);
          } catch (error) {
            // The trigger runs before the per-status CHECK constraints: only its refusal names it.
            if ((error as { constraint?: string }).constraint !== 'generation_jobs_transition') allowedByTrigger.push(`${from}→${to}`);
          } finally {
            await client.query('ROLLBACK');
          }
        }
      }
    } finally {
      client.release();
    }
    expect(allowedByTrigger.sort()).toEqual([
      'queued→cancelled',
      'queued→running',
      'running→cancelled',
      'running→failed',
      'running→queued',
      'running→succeeded',
    ]);
  });
});

describe('refusals come from the statement that was refused', () => {
  it('claim: one statement answers claimed, running elsewhere, ended, not due and unknown alike', async () => {
    const free = await created();
    const taken = await running('worker-b');
    const ended = await created();
    await cancel(pool, { jobId: ended.id, userId: ended.user_id, actor: 'user:test', nonCancellableTypes: [] }, subjects);
    const db = counting();
    const results = await claim(
      db,
      [
        { jobId: free.id, workerId: 'worker-a' },
        { jobId: taken.id, workerId: 'worker-a' },
        { jobId: ended.id, workerId: 'worker-a' },
        { jobId: uuidv7(), workerId: 'worker-a' },
      ],
      60_000,
    );
    expect(db.statements).toBe(1);
    expect(results[0]).toMatchObject({ changed: true, job: { id: free.id, status: 'running', lease_owner: 'worker-a', attempt_count: 1 } });
    expect(results[1]).toMatchObject({ changed: false, found: { status: 'running', leaseOwner: 'worker-b' } });
    expect(results[2]).toMatchObject({ changed: false, found: { status: 'cancelled' } });
    expect(results[3]).toEqual({ changed: false, found: null });
  });

  it('claim: a lone claim (bound as scalars, not arrays) answers each case as the batch does', async () => {
    const free = await created();
    const taken = await running('worker-b');
    const ended = await created();
    await cancel(pool, { jobId: ended.id, userId: ended.user_id, actor: 'user:test', nonCancellableTypes: [] }, subjects);
    const alone = async (jobId: string) => (await claim(pool, [{ jobId, workerId: 'worker-a' }], 60_000))[0];
    expect(await alone(free.id)).toMatchObject({
      changed: true,
      job: { id: free.id, status: 'running', lease_owner: 'worker-a', attempt_count: 1 },
    });
    expect(await alone(free.id)).toMatchObject({ changed: false, found: { status: 'running', leaseOwner: 'worker-a' } });
    expect(await alone(taken.id)).toMatchObject({ changed: false, found: { status: 'running', leaseOwner: 'worker-b' } });
    expect(await alone(ended.id)).toMatchObject({ changed: false, found: { status: 'cancelled' } });
    expect(await alone(uuidv7())).toEqual({ changed: false, found: null });
  });

  it('claim: two workers claiming one job in one batch give one lease', async () => {
    const job = await created();
    const results = await claim(
      pool,
      [
        { jobId: job.id, workerId: 'worker-a' },
        { jobId: job.id, workerId: 'worker-b' },
      ],
      60_000,
    );
    expect(results.filter((r) => r.changed)).toHaveLength(1);
    const events = await pool.query(`SELECT count(*)::int AS n FROM jobs.job_events WHERE job_id = $1 AND to_status = 'running'`, [job.id]);
    expect(events.rows[0].n).toBe(1);
  });

  it('complete: a refused completion says why from what its statement found', async () => {
    const mine = await running('worker-a', { expectsOutput: true, jobType: 'image.stylize' });
    const owner = mine.user_id;
    const db = counting();
    const [lost, missingOutput, wrongOwner] = await complete(
      db,
      [
        { jobId: mine.id, workerId: 'worker-b', outputAssetId: uuidv7(), outputOwnerId: owner },
        { jobId: mine.id, workerId: 'worker-a', outputAssetId: null, outputOwnerId: null },
        { jobId: mine.id, workerId: 'worker-a', outputAssetId: uuidv7(), outputOwnerId: 'someone-else' },
      ],
      subjects,
    );
    expect(db.statements).toBe(1);
    expect(lost).toMatchObject({ changed: false, found: { status: 'running', leaseOwner: 'worker-a' } });
    expect(missingOutput).toMatchObject({ changed: false, found: { expectsOutput: true, userId: owner } });
    expect(wrongOwner).toMatchObject({ changed: false, found: { userId: owner } });
    const outputId = uuidv7();
    const [done] = await complete(
      pool,
      [{ jobId: mine.id, workerId: 'worker-a', outputAssetId: outputId, outputOwnerId: owner }],
      subjects,
    );
    expect(done).toMatchObject({ changed: true, job: { status: 'succeeded', output_asset_id: outputId } });
    const outbox = await pool.query(`SELECT event_type FROM jobs.outbox WHERE aggregate_id = $1 ORDER BY id`, [mine.id]);
    expect(outbox.rows.map((r) => r.event_type)).toEqual([
      'job.dispatch',
      'creation_job_submitted',
      'job.succeeded',
      'creation_job_succeeded',
    ]);
  });

  it('heartbeat: many beats in one statement, each answered as if alone', async () => {
    const [a, b] = [await running('worker-a'), await running('worker-a')];
    const db = counting();
    const results = await extendLeases(
      db,
      [
        { jobId: a.id, workerId: 'worker-a', progress: 30 },
        { jobId: b.id, workerId: 'worker-b', progress: 30 },
        { jobId: b.id, workerId: 'worker-a', progress: 0 },
      ],
      60_000,
    );
    expect(results).toMatchObject([
      { extended: true, advanced: true },
      { extended: false, foundStatus: 'running' },
      { extended: true, advanced: false },
    ]);
    expect(db.statements).toBe(1);
  });

  it('heartbeat, progress, provider request and release answer the status they found', async () => {
    const job = await running('worker-a');
    const db = counting();
    expect((await extendLeases(db, [{ jobId: job.id, workerId: 'worker-a', progress: 40 }], 60_000))[0]).toMatchObject({
      extended: true,
      advanced: true,
    });
    expect((await extendLeases(db, [{ jobId: job.id, workerId: 'worker-a', progress: 10 }], 60_000))[0]).toMatchObject({
      extended: true,
      advanced: false,
    });
    expect((await extendLeases(db, [{ jobId: job.id, workerId: 'worker-b', progress: 50 }], 60_000))[0]).toEqual({
      extended: false,
      foundStatus: 'running',
    });
    expect(await updateProgress(db, [{ jobId: job.id, workerId: 'worker-b', progress: 90 }])).toEqual([
      { job_id: job.id, advanced: false, status: 'running', lease_owner: 'worker-a' },
    ]);
    expect(await updateProviderRequest(db, { jobId: job.id, workerId: 'worker-a', providerRequestId: 'pred-1' })).toMatchObject({
      changed: true,
    });
    expect(await updateProviderRequest(db, { jobId: job.id, workerId: 'worker-a', providerRequestId: 'pred-2' })).toMatchObject({
      changed: false,
      found: { providerRequestId: 'pred-1', leaseOwner: 'worker-a' },
    });
    expect(await release(db, { jobId: job.id, workerId: 'worker-b', reason: 'x' }, subjects)).toMatchObject({
      changed: false,
      found: { status: 'running', leaseOwner: 'worker-a' },
    });
    expect(db.statements).toBe(7);
    const released = await release(pool, { jobId: job.id, workerId: 'worker-a', reason: 'draining' }, subjects);
    expect(released).toMatchObject({ changed: true, job: { status: 'queued', attempt_count: 0, provider_request_id: 'pred-1' } });
  });

  it('fail: a decision made for one attempt is not applied to another', async () => {
    const job = await running('worker-a');
    const failing = await readFailingJob(pool, job.id);
    expect(failing).toMatchObject({ found: { status: 'running', leaseOwner: 'worker-a' }, internalFailures: 0 });
    const request = {
      jobId: job.id,
      workerId: 'worker-a',
      attempt: failing.row!.attempt_count + 1,
      failure: { errorClass: 'provider', errorCode: 'PROVIDER_ERROR', publicMessage: 'p', internalMessage: 'i' },
      abandonProviderRequest: false,
    };
    const stale = await applyFailure(pool, request, { outcome: 'requeue', delayMs: 0 }, subjects);
    expect(stale).toMatchObject({ changed: false, found: { status: 'running', leaseOwner: 'worker-a' } });
    const applied = await applyFailure(
      pool,
      { ...request, attempt: failing.row!.attempt_count },
      { outcome: 'requeue', delayMs: 5_000 },
      subjects,
    );
    expect(applied).toMatchObject({ changed: true, job: { status: 'queued' } });
    if (applied.changed) expect(applied.job.next_attempt_at.getTime()).toBeGreaterThan(Date.now() + 3_000);
  });

  it('cancel: a running job of a type that may not be cancelled is found running; another user finds nothing', async () => {
    const job = await running('worker-a');
    expect(await cancel(pool, { jobId: job.id, userId: 'not-the-owner', actor: 'user:test', nonCancellableTypes: [] }, subjects)).toEqual({
      changed: false,
      found: null,
    });
    expect(
      await cancel(pool, { jobId: job.id, userId: job.user_id, actor: 'user:test', nonCancellableTypes: ['system.canary'] }, subjects),
    ).toMatchObject({
      changed: false,
      found: { status: 'running', jobType: 'system.canary' },
    });
    const cancelled = await cancel(pool, { jobId: job.id, userId: job.user_id, actor: 'user:test', nonCancellableTypes: [] }, subjects);
    expect(cancelled).toMatchObject({ changed: true, job: { status: 'cancelled', from_status: 'running' } });
  });

  it("cancel: without a user (an operator's) any user's job is cancelled, the event naming the operator", async () => {
    const job = await created();
    const cancelled = await cancel(pool, { jobId: job.id, userId: null, actor: 'operator:ops', nonCancellableTypes: [] }, subjects);
    expect(cancelled).toMatchObject({ changed: true, job: { status: 'cancelled', from_status: 'queued' } });
    const { rows } = await pool.query(`SELECT actor FROM jobs.job_events WHERE job_id = $1 AND to_status = 'cancelled'`, [job.id]);
    expect(rows).toEqual([{ actor: 'operator:ops' }]);
  });
});

describe('create', () => {
  it('answers, per job of one batch, inserted, the earlier job of its key, or the batch neighbour that took the key', async () => {
    const userId = user();
    const earlier = await created({ userId, idempotencyKey: 'k-earlier' });
    const a = newJob({ userId, idempotencyKey: 'k-new' });
    const b = newJob({ userId, idempotencyKey: 'k-new' });
    const c = newJob({ userId, idempotencyKey: 'k-earlier' });
    const outcomes = await createJobs(pool, [a, b, c], ['t', 't', 't'], subjects);
    expect(outcomes.map((o) => [o.inserted, o.job?.id])).toEqual([
      [true, a.id],
      [false, a.id],
      [false, earlier.id],
    ]);
  });

  it('stores what it is given as given: text that needs escaping, nested parameters, the hash, a lone surrogate as U+FFFD', async () => {
    const awkward = `quote " back\\slash \\x41 new\nline tab\t emoji 🐈 {curly,brace} 'single' \u2028 NULL`;
    const requestHash = randomBytes(32);
    const job = await created({
      prompt: awkward,
      negativePrompt: 'half a pair \ud83d here',
      effectivePrompt: awkward,
      parameters: { strength: 0.5, nested: { list: [1, 'two', null], text: awkward } },
      effectiveParameters: { seed: 42 },
      traceContext: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
      width: 512,
      height: 768,
      maxAttempts: 5,
      startWithinSeconds: 90,
      requestHash,
    });
    expect(job.prompt).toBe(awkward);
    expect(job.effective_prompt).toBe(awkward);
    expect(job.negative_prompt).toBe('half a pair \ufffd here');
    expect(job.parameters).toEqual({ strength: 0.5, nested: { list: [1, 'two', null], text: awkward } });
    expect(job.effective_parameters).toEqual({ seed: 42 });
    expect(job.trace_context).toEqual({ traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' });
    expect([job.width, job.height, job.max_attempts]).toEqual([512, 768, 5]);
    expect(Buffer.compare(job.request_hash, requestHash)).toBe(0);
    expect(job.start_deadline_at!.getTime() - job.created_at.getTime()).toBe(90_000);
  });

  it('within the quota: inserts under both limits only, counting in the same statement', async () => {
    const quota = { jobTypes: ['system.canary'], dailyLimit: 2, monthlyLimit: 300, maxInFlight: 5 };
    const userId = user();
    const results = [];
    for (let i = 0; i < 3; i += 1) results.push(await createJobWithinQuota(pool, newJob({ userId }), 't', quota, subjects));
    expect(results.map((r) => r.outcome.inserted)).toEqual([true, true, false]);
    expect(results[2]!.outcome.job).toBeNull();
    expect(results[2]!.usage).toEqual({ today: 2, thisMonth: 2, inFlight: 2 });
  });

  it('within the quota: its insert runs on the generic plan it asks for, and the setting ends with its transaction', async () => {
    // One connection, so that what the create left on it is what the next query finds.
    const single = new pg.Pool({ connectionString: poolUrl(), max: 1, ...({ pipeline: true } as pg.PoolConfig) });
    const quota = { jobTypes: ['system.canary'], dailyLimit: 100, monthlyLimit: 300, maxInFlight: 100 };
    try {
      for (let i = 0; i < 3; i += 1) {
        expect((await createJobWithinQuota(single, newJob({ userId: user() }), 't', quota, subjects)).outcome.inserted).toBe(true);
      }
      const { rows } = await single.query<{ generic_plans: string; custom_plans: string }>(
        `SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name = 'jobs.create_jobs_within_quota'`,
      );
      expect(rows.map((r) => [Number(r.generic_plans), Number(r.custom_plans)])).toEqual([[3, 0]]);
      // The pooled connection's next user plans as usual.
      expect((await single.query<{ mode: string }>('SELECT current_setting($1) AS mode', ['plan_cache_mode'])).rows[0]!.mode).toBe('auto');
    } finally {
      await single.end();
    }
  });

  it("within the quota: each user's usage is read once per job — three reads of the jobs table, not one per use", async () => {
    const quota = { jobTypes: ['system.canary'], dailyLimit: 100, monthlyLimit: 300, maxInFlight: 100 };
    const jobs = [newJob({ userId: user() }), newJob({ userId: user() })];
    const [, insert] = withinQuotaStatements(jobs, ['t', 't'], quota, subjects).statements as { text: string; values: unknown[] }[];
    const { rows } = await pool.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>({
      text: `EXPLAIN (FORMAT JSON) ${insert!.text}`,
      values: insert!.values,
    });
    const nodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodes)];
    const usage = nodes(rows[0]!['QUERY PLAN'][0].Plan).find((node) => node['Subplan Name'] === 'CTE usage')!;
    // today's jobs, the month's earlier days, the jobs in flight: each counted once, though the
    // refusal compares them with the limits and the row answers them too.
    expect(nodes(usage).filter((node) => node['Relation Name'] === 'generation_jobs')).toHaveLength(3);
  });

  it('within the quota: the statement answers why it refused — the account, else the allowance that frees last — and nothing when it did not', async () => {
    const createFor = (userId: string, quota: Parameters<typeof createJobWithinQuota>[3], job = newJob({ userId })) =>
      createJobWithinQuota(pool, job, 't', quota, subjects);
    const roomy = { jobTypes: ['system.canary'], dailyLimit: 100, monthlyLimit: 300, maxInFlight: 100 };
    const userId = user();
    const first = newJob({ userId });
    expect((await createFor(userId, roomy, first)).refusal).toBeNull();
    expect((await createFor(userId, roomy)).refusal).toBeNull();
    // A replay of the first key is its job, whatever the quota: no refusal.
    const replay = await createFor(userId, { ...roomy, maxInFlight: 1 }, { ...newJob({ userId }), idempotencyKey: first.idempotencyKey });
    expect(replay).toMatchObject({ outcome: { inserted: false, job: { id: first.id } }, refusal: null });
    // Two in flight, two today, two this month: each limit alone, then several at once.
    expect((await createFor(userId, { ...roomy, maxInFlight: 2 })).refusal).toBe('in_flight');
    expect((await createFor(userId, { ...roomy, dailyLimit: 2 })).refusal).toBe('daily');
    expect((await createFor(userId, { ...roomy, dailyLimit: 2, maxInFlight: 2 })).refusal).toBe('daily');
    expect((await createFor(userId, { ...roomy, dailyLimit: 2, monthlyLimit: 2, maxInFlight: 2 })).refusal).toBe('monthly');
    await pool.query('INSERT INTO jobs.account_deletions (user_id, deletion_id) VALUES ($1, $2)', [userId, uuidv7()]);
    expect(await createFor(userId, roomy)).toMatchObject({ outcome: { inserted: false, job: null }, refusal: 'account_deleted' });
  });

  it('within the quota, batched: each user counted alone, a refusal is that user alone, the second job of a user counted after the first', async () => {
    const quota = { jobTypes: ['system.canary'], dailyLimit: 2, monthlyLimit: 300, maxInFlight: 5 };
    const [full, fresh, twice] = [user(), user(), user()];
    await createBatch([newJob({ userId: full }), newJob({ userId: full })], quota);
    const jobs = [
      newJob({ userId: full }),
      newJob({ userId: twice, idempotencyKey: 'same' }),
      newJob({ userId: fresh }),
      newJob({ userId: twice, idempotencyKey: 'same' }),
      newJob({ userId: twice }),
      newJob({ userId: twice }),
    ];
    const results = await createBatch(jobs, quota);
    expect(results.map((r) => [r.outcome.inserted, r.outcome.job?.id ?? null])).toEqual([
      [false, null], // full: refused, alone
      [true, jobs[1]!.id],
      [true, jobs[2]!.id],
      [false, jobs[1]!.id], // the same key again: the job of its first round
      [true, jobs[4]!.id], // twice's second job, counted after the first: 1 < 2
      [false, null], // and the third: 2 of 2 today
    ]);
    expect(results[0]!.usage).toEqual({ today: 2, thisMonth: 2, inFlight: 2 });
    expect(results[5]!.usage).toEqual({ today: 2, thisMonth: 2, inFlight: 2 });
  });

  it('within the quota, batched: concurrent batches of overlapping users never overshoot either limit', async () => {
    const quota = { jobTypes: ['system.canary'], dailyLimit: 100, monthlyLimit: 300, maxInFlight: 3 };
    const users = Array.from({ length: 5 }, () => user());
    const batches = Array.from({ length: 12 }, (_, b) => {
      const jobs = users.map((userId) => newJob({ userId }));
      return b % 2 ? jobs.reverse() : jobs;
    });
    const results = await Promise.all(batches.map((jobs) => createBatch(jobs, quota)));
    expect(results.flat().filter((r) => r.outcome.inserted)).toHaveLength(users.length * quota.maxInFlight);
    const { rows } = await pool.query<{ user_id: string; n: number }>(
      `SELECT user_id, count(*)::int AS n FROM jobs.generation_jobs WHERE user_id = ANY($1) GROUP BY user_id`,
      [users],
    );
    expect(rows.map((r) => r.n)).toEqual(users.map(() => quota.maxInFlight));
  });
});

describe('create within the monthly quota', () => {
  /** The database's clock, as the quota reads it: the starts of the current UTC day and month. */
  const windows = async () =>
    (
      await pool.query<{ day: Date; month: Date }>(
        `SELECT date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS day,
                date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS month`,
      )
    ).rows[0]!;
  const moveCreatedAt = (jobIds: string[], createdAt: Date) =>
    pool.query('UPDATE jobs.generation_jobs SET created_at = $2 WHERE id = ANY($1)', [jobIds, createdAt]);
  const createFor = (userId: string, quota: Parameters<typeof createJobWithinQuota>[3]) =>
    createJobWithinQuota(pool, newJob({ userId }), 't', quota, subjects);

  it('counts the month from 00:00 UTC on the 1st: a job created an instant before does not count, one at it does', async () => {
    // Monthly below daily: a configuration jobs refuses at start-up, used here to see the month bind alone.
    const quota = { jobTypes: ['system.canary'], dailyLimit: 100, monthlyLimit: 2, maxInFlight: 100 };
    const userId = user();
    const earlier = [(await createFor(userId, quota)).outcome.job!.id, (await createFor(userId, quota)).outcome.job!.id];
    expect(await createFor(userId, quota)).toMatchObject({ outcome: { inserted: false, job: null }, usage: { today: 2, thisMonth: 2 } });

    const { month } = await windows();
    await moveCreatedAt(earlier, new Date(month.getTime() - 1)); // 1 ms before: last month
    expect(await createFor(userId, quota)).toMatchObject({ outcome: { inserted: true }, usage: { today: 0, thisMonth: 0, inFlight: 2 } });
    await moveCreatedAt(earlier, month);
    // Both at the start of the month count, with today's: 3 (on the 1st all three are today's).
    expect(await createFor(userId, quota)).toMatchObject({ outcome: { inserted: false, job: null }, usage: { thisMonth: 3 } });
  });

  it.skipIf(new Date().getUTCDate() === 1)(
    "counts the month's earlier days, today's jobs once, and at most the limit of the earlier ones (not on the 1st: no earlier day)",
    async () => {
      const quota = { jobTypes: ['system.canary'], dailyLimit: 100, monthlyLimit: 3, maxInFlight: 100 };
      const userId = user();
      const five = Array.from({ length: 5 }, () => newJob({ userId }));
      await createJobs(
        pool,
        five,
        five.map(() => 't'),
        subjects,
      );
      const { month } = await windows();
      await moveCreatedAt(
        five.map((job) => job.id),
        month,
      );
      // Five earlier this month, none today: the month is full, counted up to its limit.
      expect(await createFor(userId, quota)).toMatchObject({
        outcome: { inserted: false },
        usage: { today: 0, thisMonth: 3, inFlight: 5 },
      });
      const roomy = { ...quota, monthlyLimit: 7 };
      expect(await createFor(userId, roomy)).toMatchObject({ outcome: { inserted: true }, usage: { today: 0, thisMonth: 5 } });
      expect(await createFor(userId, roomy)).toMatchObject({ outcome: { inserted: true }, usage: { today: 1, thisMonth: 6 } });
      expect(await createFor(userId, roomy)).toMatchObject({ outcome: { inserted: false }, usage: { today: 2, thisMonth: 7 } });
    },
  );

  it('gives a job back in the month exactly where the day gives it back: cancelled before any submission', async () => {
    const quota = { jobTypes: ['system.canary'], dailyLimit: 100, monthlyLimit: 1, maxInFlight: 100 };
    const userId = user();
    const first = await createFor(userId, quota);
    expect((await createFor(userId, quota)).outcome.inserted).toBe(false);
    await cancel(pool, { jobId: first.outcome.job!.id, userId, actor: 'test', nonCancellableTypes: [] }, subjects);
    expect(await createFor(userId, quota)).toMatchObject({ outcome: { inserted: true }, usage: { today: 0, thisMonth: 0 } });
  });

  it('concurrent batches of overlapping users never overshoot the monthly limit', async () => {
    const quota = { jobTypes: ['system.canary'], dailyLimit: 100, monthlyLimit: 2, maxInFlight: 100 };
    const users = Array.from({ length: 5 }, () => user());
    const batches = Array.from({ length: 12 }, (_, b) => {
      const jobs = users.map((userId) => newJob({ userId }));
      return b % 2 ? jobs.reverse() : jobs;
    });
    const results = await Promise.all(batches.map((jobs) => createBatch(jobs, quota)));
    expect(results.flat().filter((r) => r.outcome.inserted)).toHaveLength(users.length * quota.monthlyLimit);
    const { rows } = await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM jobs.generation_jobs WHERE user_id = ANY($1) GROUP BY user_id`,
      [users],
    );
    expect(rows.map((r) => r.n)).toEqual(users.map(() => quota.monthlyLimit));
    for (const refused of results.flat().filter((r) => !r.outcome.inserted)) expect(refused.usage.thisMonth).toBe(quota.monthlyLimit);
  });
});

describe('statistics', () => {
  it("ANALYZE keeps none for the outbox's payloads and trace contexts, and keeps the prompts' (replaced as rows are redacted)", async () => {
    await created({ prompt: 'a cat in a hat' });
    await created({ prompt: 'a dog on a log' });
    await pool.query('ANALYZE jobs.generation_jobs, jobs.outbox');
    const statisticsOf = async (table: string) => {
      const [schema, name] = table.split('.');
      const { rows } = await pool.query<{ attname: string }>(`SELECT attname FROM pg_stats WHERE schemaname = $1 AND tablename = $2`, [
        schema,
        name,
      ]);
      return rows.map((row) => row.attname);
    };
    const outbox = await statisticsOf('jobs.outbox');
    expect(outbox).toContain('aggregate_id');
    expect(outbox.filter((column) => OUTBOX_COLUMNS_WITHOUT_STATISTICS.includes(column))).toEqual([]);
    expect(await statisticsOf('jobs.generation_jobs')).toEqual(expect.arrayContaining(['user_id', 'prompt', 'parameters']));
  });
});

describe('outbox rows claimed for the local relay', () => {
  const outboxOf = async (jobId: string) =>
    (
      await pool.query(
        `SELECT event_type, status, locked_by, available_at > now() AS later FROM jobs.outbox WHERE aggregate_id = $1 ORDER BY id`,
        [jobId],
      )
    ).rows;

  it('writes due rows claimed by the relay it is given and answers them with the row; rows due later, or without a relay, wait pending', async () => {
    const [outcome] = await createJobs(pool, [newJob()], ['test'], { ...subjects, claimFor: 'relay-here' });
    const job = outcome!.job!;
    expect(await outboxOf(job.id)).toEqual([{ event_type: 'job.dispatch', status: 'processing', locked_by: 'relay-here', later: false }]);
    expect(job.claimed_outbox).toEqual([
      expect.objectContaining({
        event_type: 'job.dispatch',
        subject: subjects.dispatchInteractive,
        payload: expect.objectContaining({ jobId: job.id }),
      }),
    ]);
    expect(job.claimed_outbox![0]!.dedupe_key).toBe(`dispatch:${job.id}:v1`);

    // A retry due in 5 s: its dispatch is not due, so no relay claims it now.
    const [claimed] = await claim(pool, [{ jobId: job.id, workerId: 'worker-a' }], 60_000);
    expect(claimed!.changed).toBe(true);
    const failing = await readFailingJob(pool, job.id);
    const requeued = await applyFailure(
      pool,
      {
        jobId: job.id,
        workerId: 'worker-a',
        attempt: failing.row!.attempt_count,
        failure: { errorClass: 'provider', errorCode: 'PROVIDER_ERROR', publicMessage: 'p', internalMessage: 'i' },
        abandonProviderRequest: false,
      },
      { outcome: 'requeue', delayMs: 5_000 },
      { ...subjects, claimFor: 'relay-here' },
    );
    expect(requeued).toMatchObject({ changed: true, job: { status: 'queued', claimed_outbox: null } });
    expect((await outboxOf(job.id))[1]).toEqual({ event_type: 'job.dispatch', status: 'pending', locked_by: null, later: true });

    const unclaimed = await created();
    expect(unclaimed.claimed_outbox).toBeNull();
    expect(await outboxOf(unclaimed.id)).toEqual([{ event_type: 'job.dispatch', status: 'pending', locked_by: null, later: false }]);
  });
});

describe('product events of jobs', () => {
  const creation = (overrides: Partial<NewJob> = {}) =>
    newJob({
      jobType: 'image.stylize',
      expectsOutput: true,
      modelId: uuidv7(),
      styleId: uuidv7(),
      inputAssetId: uuidv7(),
      providerCode: 'sim',
      providerModel: 'sim-model',
      modelVersion: 'v7',
      styleCode: 'watercolor',
      prompt: 'a secret prompt about my cat',
      negativePrompt: 'a secret negative prompt',
      ...overrides,
    });
  const productRowsOf = async (jobId: string) =>
    (
      await pool.query(
        `SELECT event_type, subject, dedupe_key, payload, status FROM jobs.outbox
          WHERE aggregate_id = $1 AND event_type LIKE 'creation_%' ORDER BY id`,
        [jobId],
      )
    ).rows as { event_type: string; subject: string; dedupe_key: string; payload: Record<string, unknown>; status: string }[];

  it('a new creation job writes creation_job_submitted with the user_ref code makes and no prompt; its replay writes none', async () => {
    const job = creation();
    const [outcome] = await createJobs(pool, [job], ['test'], { ...subjects, claimFor: 'relay-here' });
    const rows = await productRowsOf(job.id);
    expect(rows).toEqual([
      {
        event_type: 'creation_job_submitted',
        subject: 't.product.events.creation_job_submitted',
        dedupe_key: `creation_job_submitted:${job.id}`,
        status: 'processing',
        payload: {
          eventId: `creation_job_submitted:${job.id}`,
          eventName: 'creation_job_submitted',
          occurredAt: outcome!.job!.created_at.toISOString(),
          userRef: userRefKey.refOf(job.userId),
          props: {
            job_id: job.id,
            job_type: 'image.stylize',
            media_kind: 'image',
            queue: 'interactive',
            model_id: job.modelId,
            model_version: 'v7',
            style_id: job.styleId,
            style_code: 'watercolor',
            input_asset_id: job.inputAssetId,
            has_pet: false,
            max_attempts: 3,
          },
        },
      },
    ]);
    // Handed to the local relay with the dispatch, for publication right after the commit.
    expect(outcome!.job!.claimed_outbox!.map((row) => row.event_type).sort()).toEqual(['creation_job_submitted', 'job.dispatch']);
    expect(JSON.stringify(rows)).not.toMatch(/secret|transition-user/);

    const [replay] = await createJobs(
      pool,
      [{ ...creation({ userId: job.userId, idempotencyKey: job.idempotencyKey }) }],
      ['test'],
      subjects,
    );
    expect(replay).toMatchObject({ inserted: false, job: { id: job.id } });
    expect(await productRowsOf(job.id)).toHaveLength(1);
  });

  it('an operator probe (system.canary) writes no product event', async () => {
    const job = await running();
    await complete(pool, [{ jobId: job.id, workerId: 'worker-a', outputAssetId: null, outputOwnerId: null }], subjects);
    expect(await productRowsOf(job.id)).toEqual([]);
  });

  it('each end writes its creation_job_<status> once, with attempts, durations, the error code, the output', async () => {
    const [succeeding, failing, cancelling] = [creation(), creation(), creation()];
    await createJobs(pool, [succeeding, failing, cancelling], ['t', 't', 't'], subjects);
    await claim(
      pool,
      [succeeding, failing].map((job) => ({ jobId: job.id, workerId: 'worker-a' })),
      60_000,
    );
    const outputId = uuidv7();
    await complete(
      pool,
      [{ jobId: succeeding.id, workerId: 'worker-a', outputAssetId: outputId, outputOwnerId: succeeding.userId }],
      subjects,
    );
    await applyFailure(
      pool,
      {
        jobId: failing.id,
        workerId: 'worker-a',
        attempt: 1,
        failure: { errorClass: 'content_safety', errorCode: 'CONTENT_BLOCKED', publicMessage: 'no', internalMessage: 'the prompt was bad' },
        abandonProviderRequest: false,
      },
      { outcome: 'fail' },
      subjects,
    );
    await cancel(pool, { jobId: cancelling.id, userId: cancelling.userId, actor: 'user:test', nonCancellableTypes: [] }, subjects);

    const ended = async (job: NewJob) => (await productRowsOf(job.id)).slice(1).map((row) => row.payload);
    const [succeeded] = await ended(succeeding);
    expect(succeeded).toMatchObject({
      eventId: `creation_job_succeeded:${succeeding.id}`,
      eventName: 'creation_job_succeeded',
      userRef: userRefKey.refOf(succeeding.userId),
      props: { job_id: succeeding.id, job_type: 'image.stylize', attempts: 1, output_asset_id: outputId, style_code: 'watercolor' },
    });
    expect((succeeded!.props as Record<string, number>).duration_ms).toBeGreaterThanOrEqual(0);
    expect((succeeded!.props as Record<string, number>).run_ms).toBeGreaterThanOrEqual(0);
    expect(await ended(failing)).toEqual([
      expect.objectContaining({
        eventName: 'creation_job_failed',
        props: expect.objectContaining({ job_id: failing.id, attempts: 1, error_code: 'CONTENT_BLOCKED' }),
      }),
    ]);
    const [cancelled] = await ended(cancelling);
    expect(cancelled).toMatchObject({ eventName: 'creation_job_cancelled', props: { job_id: cancelling.id, attempts: 0 } });
    // Cancelled before it ran: no run time, no output, no error — left out rather than null.
    expect(Object.keys(cancelled!.props as object)).not.toEqual(expect.arrayContaining(['run_ms']));
    expect(Object.values(cancelled!.props as object)).not.toContain(null);
    expect(JSON.stringify([succeeded, cancelled, await ended(failing)])).not.toMatch(/secret|prompt was bad|transition-user/);
  });
});

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { jobsExecutionV1, jobsV1 } from '@atelier/contracts';
import { createSqlPool, type SqlPool } from '@atelier/db';
import { createLogger } from '@atelier/logging';
import { waitUntil } from '@atelier/testing';
import { canaryRequest, startJobsHarness, type JobsHarness } from '../test-support/jobs-harness.js';
import { SHIPPED_DEFINITIONS } from '../definitions/index.js';
import { retentionPeriodsOf } from './retention-periods.js';
import { RetentionPruner, type RetentionPrunerOptions, type RetentionTable } from './retention-pruner.js';

// Retention against the real schema: jobs made through the API, then aged the way time ages
// them, then pruned. Old published outbox rows and the events of long-ended jobs go; everything
// else stays, and what users see of a pruned job does not change. Each test has a database of its
// own, where the jobs it ages are its oldest, as in production (event ids follow time).
let h: JobsHarness;
const logger = createLogger({ service: 'retention-test', level: 'silent' });
let pools: SqlPool[] = [];
const DAY_MS = 24 * 3_600_000;
const { ClaimOutcome, ErrorClass } = jobsExecutionV1;

beforeEach(async () => {
  h = await startJobsHarness({}, { peers: false });
}, 60_000);

afterEach(async () => {
  await Promise.all(pools.map((pool) => pool.end()));
  pools = [];
  await h?.stop();
});

function newPruner(options: Partial<RetentionPrunerOptions> = {}): RetentionPruner {
  const pool = createSqlPool({ databaseUrl: h.database.url, applicationName: 'retention-test' });
  pools.push(pool);
  return new RetentionPruner({
    pool,
    logger,
    intervalMs: 3_600_000,
    outboxRetentionMs: DAY_MS,
    jobEventsRetentionDays: 30,
    batchSize: 1_000,
    redactionBatchSize: 1_000,
    batchPauseMs: 0,
    periods: retentionPeriodsOf(SHIPPED_DEFINITIONS),
    ...options,
  });
}

let seq = 0;
/** Canary jobs of one user, created, claimed and completed through the API: 3 events each. */
async function succeededJobs(user: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const { job } = await h.jobs.createJob(canaryRequest(user, `r-${++seq}`));
    expect((await h.execution.claimJob({ jobId: job!.id, workerId: 'w1' })).outcome).toBe(ClaimOutcome.CLAIMED);
    await h.execution.completeJob({ jobId: job!.id, workerId: 'w1', outputAssetId: '', outputSha256: '' });
    ids.push(job!.id);
  }
  return ids;
}

/** A job that took two attempts (failed once, retried) and then succeeded: 5 events. */
async function retriedJob(user: string): Promise<string> {
  const { job } = await h.jobs.createJob(canaryRequest(user, `r-${++seq}`));
  await h.execution.claimJob({ jobId: job!.id, workerId: 'w1' });
  await h.execution.failJob({
    jobId: job!.id,
    workerId: 'w1',
    errorClass: ErrorClass.PROVIDER,
    errorCode: 'PROVIDER_UNAVAILABLE',
    publicMessage: '',
    internalMessage: '',
    retryable: true,
    abandonProviderRequest: false,
  });
  await h.db.query(`UPDATE jobs.generation_jobs SET next_attempt_at = now() WHERE id = $1`, [job!.id]);
  await new Promise((resolve) => setTimeout(resolve, 20));
  expect((await h.execution.claimJob({ jobId: job!.id, workerId: 'w2' })).outcome).toBe(ClaimOutcome.CLAIMED);
  await h.execution.completeJob({ jobId: job!.id, workerId: 'w2', outputAssetId: '', outputSha256: '' });
  return job!.id;
}

/**
 * What `days` do to ended jobs: everything about them happened that long ago. Terminal rows never
 * change (the transition trigger refuses), so this test's own session skips triggers
 * (session_replication_role = replica) to move their times; every CHECK still holds.
 */
async function age(jobIds: string[], days: number): Promise<void> {
  const shift = `make_interval(days => ${days})`;
  await h.db.query('SET session_replication_role = replica');
  try {
    await h.db.query(
      `UPDATE jobs.generation_jobs SET created_at = created_at - ${shift}, updated_at = updated_at - ${shift},
              started_at = started_at - ${shift}, completed_at = completed_at - ${shift}, next_attempt_at = next_attempt_at - ${shift}
        WHERE id = ANY($1)`,
      [jobIds],
    );
    await h.db.query(`UPDATE jobs.job_events SET occurred_at = occurred_at - ${shift} WHERE job_id = ANY($1)`, [jobIds]);
  } finally {
    await h.db.query('SET session_replication_role = DEFAULT');
  }
}

async function publishedOutbox(jobIds: string[]): Promise<void> {
  await waitUntil(async () => {
    const { rows } = await h.db.query(`SELECT count(*)::int AS n FROM jobs.outbox WHERE aggregate_id = ANY($1) AND status <> 'published'`, [
      jobIds,
    ]);
    return rows[0].n === 0;
  });
}

async function ageOutbox(jobIds: string[], days: number): Promise<void> {
  await h.db.query(
    `UPDATE jobs.outbox SET published_at = published_at - make_interval(days => $2), created_at = created_at - make_interval(days => $2)
      WHERE aggregate_id = ANY($1)`,
    [jobIds, days],
  );
}

async function countRows(table: 'job_events' | 'outbox' | 'job_histories', jobIds: string[]): Promise<number> {
  const column = table === 'outbox' ? 'aggregate_id' : 'job_id';
  const { rows } = await h.db.query(`SELECT count(*)::int AS n FROM jobs.${table} WHERE ${column} = ANY($1)`, [jobIds]);
  return rows[0].n;
}

describe('retention - the outbox', () => {
  it('deletes published rows past OUTBOX_RETENTION_MS and keeps recent published, pending and dead rows', async () => {
    const user = `outbox-user-${process.pid}`;
    const old = await succeededJobs(user, 3);
    const recent = await succeededJobs(user, 2);
    await publishedOutbox([...old, ...recent]);
    await ageOutbox(old, 2);
    // A row the broker refused for good, and one waiting for a retry: neither is history.
    const { rows: kept } = await h.db.query<{ id: string }>(
      `INSERT INTO jobs.outbox (aggregate_id, event_type, subject, dedupe_key, payload, status, attempt_count, available_at, created_at, last_error)
       VALUES (gen_random_uuid(), 'job.dispatch', 'x.dead', 'retention-dead-' || $1, '{}', 'dead', 10, now() - interval '9 days', now() - interval '9 days', 'refused'),
              (gen_random_uuid(), 'job.dispatch', 'x.pending', 'retention-pending-' || $1, '{}', 'pending', 3, now() + interval '1 hour', now() - interval '9 days', 'refused')
       RETURNING id`,
      [process.pid],
    );

    const result = await newPruner({ jobEventsRetentionDays: 0 }).runOnce();

    expect(result!.outbox).toBe(3 * 2); // each old job's dispatch and its job.succeeded
    expect(await countRows('outbox', old)).toBe(0);
    expect(await countRows('outbox', recent)).toBe(2 * 2);
    const { rows } = await h.db.query(`SELECT status FROM jobs.outbox WHERE id = ANY($1) ORDER BY status`, [kept.map((row) => row.id)]);
    expect(rows.map((row) => row.status)).toEqual(['dead', 'pending']);
  });
});

describe('retention - job events', () => {
  it('prunes the events of jobs ended longer ago than JOB_EVENTS_RETENTION_DAYS; their views, lists and timings do not change', async () => {
    const user = `events-user-${process.pid}`;
    const old = [...(await succeededJobs(user, 2)), await retriedJob(user)];
    const { job: queued } = await h.jobs.createJob(canaryRequest(user, `r-${++seq}`));
    await age([...old, queued!.id], 40); // a job still queued keeps its events however old it is
    const recentlyEnded = await succeededJobs(user, 1);
    const before = await Promise.all(old.map((jobId) => h.jobs.getJob({ jobId, userId: user })));
    const listBefore = await h.jobs.listJobs(jobsV1.ListJobsRequest.fromPartial({ userId: user, pageSize: 100 }));
    const detailsBefore = await h.admin.getJobDetails({ jobId: old[2]! });

    // What users wrote is kept here (its redaction changes the view on purpose: redaction.integration.test.ts).
    const keepWhatUsersWrote = { redactInputs: { jobTypes: [], days: [] }, deleteInputImage: { jobTypes: [], days: [] } };
    const result = await newPruner({ periods: keepWhatUsersWrote }).runOnce();

    expect(result!.job_events).toBe(3 + 3 + 5);
    expect(await countRows('job_events', old)).toBe(0);
    expect(await countRows('job_histories', old)).toBe(3);
    expect(await countRows('job_events', recentlyEnded)).toBe(3);
    expect(await countRows('job_events', [queued!.id])).toBe(1);
    const after = await Promise.all(old.map((jobId) => h.jobs.getJob({ jobId, userId: user })));
    expect(after).toEqual(before);
    expect(after[2]!.job!.timings!.attempts).toHaveLength(2);
    const listed = (response: jobsV1.ListJobsResponse) => response.jobs.filter((job) => old.includes(job.id));
    const listAfter = await h.jobs.listJobs(jobsV1.ListJobsRequest.fromPartial({ userId: user, pageSize: 100 }));
    expect(listed(listAfter)).toEqual(listed(listBefore));
    expect(listed(listAfter)).toHaveLength(3);
    // Operators keep the transitions and the timings; who made them (actors, details) is gone.
    const detailsAfter = await h.admin.getJobDetails({ jobId: old[2]! });
    expect(detailsAfter.job!.job!.timings).toEqual(detailsBefore.job!.job!.timings);
    expect(detailsAfter.events.map((e) => [e.fromStatus, e.toStatus, e.attempt, e.errorCode, e.occurredAt])).toEqual(
      detailsBefore.events.map((e) => [e.fromStatus, e.toStatus, e.attempt, e.errorCode, e.occurredAt]),
    );
    expect(new Set(detailsAfter.events.map((e) => e.actor))).toEqual(new Set(['archived']));

    expect((await newPruner({ periods: keepWhatUsersWrote }).runOnce())!.job_events, 'nothing left to prune').toBe(0);
  });
});

describe('retention - quota refusals', () => {
  it("deletes the refusals of ended periods (yesterday's daily and in-flight ones, last month's monthly ones), keeps the current ones", async () => {
    // 5 ended, 3 current; a batch of 2 deletes them over three statements.
    await h.db.query(
      `WITH w AS (SELECT date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS day,
                         date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS month,
                         (date_trunc('month', now() AT TIME ZONE 'UTC') - interval '1 month') AT TIME ZONE 'UTC' AS last_month)
       INSERT INTO jobs.quota_hits (allowance, period_start, user_id)
       SELECT h.* FROM w, LATERAL (VALUES
         ('daily', w.day - interval '1 day', 'a'), ('daily', w.day - interval '40 days', 'b'), ('in_flight', w.day - interval '1 day', 'a'),
         ('monthly', w.last_month, 'a'), ('monthly', w.last_month, 'c'),
         ('daily', w.day, 'a'), ('in_flight', w.day, 'b'), ('monthly', w.month, 'a')) AS h(allowance, period_start, user_id)`,
    );
    const batches: number[] = [];
    const result = await newPruner({
      batchSize: 2,
      onPruned: (table, count) => {
        if (table === 'quota_hits') batches.push(count);
      },
    }).runOnce();
    expect(result!.quota_hits).toBe(5);
    expect(batches).toEqual([2, 2, 1]);
    const { rows } = await h.db.query(`SELECT allowance, user_id FROM jobs.quota_hits ORDER BY allowance, user_id`);
    expect(rows).toEqual([
      { allowance: 'daily', user_id: 'a' },
      { allowance: 'in_flight', user_id: 'b' },
      { allowance: 'monthly', user_id: 'a' },
    ]);
  });
});

describe('retention - batches', () => {
  it('never deletes more rows in one statement than its batch size, and passes over a job larger than a batch', async () => {
    const user = `batch-user-${process.pid}`;
    const jobs = await succeededJobs(user, 7); // 21 events, 14 outbox rows
    await publishedOutbox(jobs);
    await age(jobs, 40);
    await ageOutbox(jobs, 40);
    const batches: Record<RetentionTable, number[]> = { outbox: [], job_events: [], quota_hits: [], redacted_jobs: [], input_images: [] };
    const onPruned = (table: RetentionTable, count: number) => batches[table].push(count);

    // A batch of 2 events cannot hold a job's 3: nothing is deleted, and the run still ends.
    expect((await newPruner({ batchSize: 2, outboxRetentionMs: 365 * DAY_MS, onPruned }).runOnce())!.job_events).toBe(0);
    expect(await countRows('job_events', jobs)).toBe(21);

    const result = await newPruner({ batchSize: 4, onPruned }).runOnce();
    expect(result).toEqual({ outbox: 14, job_events: 21, quota_hits: 0, redacted_jobs: 0, input_images: 0 }); // the first run redacted them
    expect(Math.max(...batches.outbox, ...batches.job_events)).toBeLessThanOrEqual(4);
    expect(batches.outbox.reduce((a, b) => a + b, 0)).toBe(14);
    expect(batches.job_events).toEqual([3, 3, 3, 3, 3, 3, 3]); // whole jobs only: one per batch of 4
  });
});

describe('retention - replicas', () => {
  it('runs on one replica at a time: a second pruner skips its turn while the first holds the lock', async () => {
    const user = `replica-user-${process.pid}`;
    const jobs = await succeededJobs(user, 6);
    await publishedOutbox(jobs);
    await ageOutbox(jobs, 3);
    const [first, second] = [newPruner({ batchSize: 1, batchPauseMs: 100 }), newPruner({ batchSize: 1, batchPauseMs: 100 })];

    const results = await Promise.all([first.runOnce(), second.runOnce()]);

    expect(results.filter((r) => r === null)).toHaveLength(1);
    expect(results.find((r) => r !== null)!.outbox).toBe(12);
    expect(await countRows('outbox', jobs)).toBe(0);
    expect(await second.runOnce(), 'the lock is released at the end of a run').toEqual({
      outbox: 0,
      job_events: 0,
      quota_hits: 0,
      redacted_jobs: 0,
      input_images: 0,
    });
  });
});

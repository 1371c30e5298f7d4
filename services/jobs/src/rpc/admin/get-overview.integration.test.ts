import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobsAdminV1, jobsV1 } from '@atelier/contracts';
import { createSqlPool, uuidv7, type SqlPool } from '@atelier/db';
import { ErrorCode } from '@atelier/errors';
import { createTestDatabase, type TestDatabase } from '@atelier/testing';
import { createJobsOrm, migrateJobs } from '../../db/jobs-orm.js';
import { readOverview } from '../../db/overview-sql.js';
import { overviewBuckets } from '../../domain/overview-window.js';
import { refusal, startJobsHarness, type JobsHarness } from '../../test-support/jobs-harness.js';
import { toGetOverviewResponse } from '../overview-mapper.js';

// The overview read model against a database filled with known jobs, events and outbox rows, each
// at a chosen instant relative to the current minute M, so every figure is known in advance. No
// jobs service runs on this database: nothing relays, reaps or sweeps what the test wrote.
const LEASE_TTL_MS = 60_000;
const MINUTE = 60_000;

let database: TestDatabase;
let pool: SqlPool;
/** The start of the current minute and the database's now(), when the rows were written. */
let M: number;
let now: number;

type Status = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';
interface JobSpec {
  jobType: 'image.stylize' | 'system.canary';
  queue?: 'interactive' | 'background';
  status: Status;
  attempts: number;
  nextAttemptAt?: number;
  lease?: { owner: string; expiresAt: number };
  /** [from, to, at] per transition, the first (creation) from null. */
  events: [Status | null, Status, number][];
}

const at = (minutes: number, seconds = 0) => M + minutes * MINUTE + seconds * 1000;

async function insertJob(spec: JobSpec): Promise<string> {
  const id = uuidv7();
  const created = spec.events[0]![2];
  const claims = spec.events.filter(([, to]) => to === 'running');
  const startedAt = claims.length > 0 ? claims.at(-1)![2] : null;
  const ended = ['succeeded', 'failed', 'cancelled'].includes(spec.status) ? spec.events.at(-1)![2] : null;
  const toDate = (ms: number | null) => (ms === null ? null : new Date(ms));
  await pool.query(
    `INSERT INTO jobs.generation_jobs
       (id, user_id, job_type, media_kind, queue, expects_output, status, progress, attempt_count, max_attempts, error_code,
        idempotency_key, request_hash, next_attempt_at, lease_owner, lease_expires_at, created_at, started_at, completed_at)
     VALUES ($1, 'overview-user', $2, 'image', $3, false, $4, $5, $6, 3, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
    [
      id,
      spec.jobType,
      spec.queue ?? 'interactive',
      spec.status,
      spec.status === 'succeeded' ? 100 : 0,
      spec.attempts,
      spec.status === 'failed' ? 'PROVIDER_FAILED' : null,
      `key-${id}`,
      randomBytes(32),
      new Date(spec.nextAttemptAt ?? created),
      spec.lease?.owner ?? null,
      toDate(spec.lease?.expiresAt ?? null),
      new Date(created),
      toDate(spec.status === 'queued' ? null : startedAt),
      toDate(ended),
    ],
  );
  let attempt = 0;
  for (const [from, to, occurred] of spec.events) {
    if (to === 'running') attempt += 1;
    await pool.query(
      `INSERT INTO jobs.job_events (job_id, from_status, to_status, attempt, actor, occurred_at) VALUES ($1, $2, $3, $4, 'test', $5)`,
      [id, from, to, attempt, new Date(occurred)],
    );
  }
  return id;
}

async function insertOutboxRow(status: 'pending' | 'processing' | 'published' | 'dead', availableAt: number): Promise<void> {
  await pool.query(
    `INSERT INTO jobs.outbox (aggregate_id, event_type, subject, dedupe_key, payload, status, available_at, locked_by, locked_at, published_at)
     VALUES ($1, 'job.dispatch', 'test.dispatch', $2, '{}', $3::varchar, $4,
             CASE WHEN $3::varchar = 'processing' THEN 'relay-1' END, CASE WHEN $3::varchar = 'processing' THEN now() END,
             CASE WHEN $3::varchar = 'published' THEN now() END)`,
    [uuidv7(), `dedupe-${randomBytes(6).toString('hex')}`, status, new Date(availableAt)],
  );
}

const ids: Record<string, string> = {};

beforeAll(async () => {
  database = await createTestDatabase();
  const orm = await createJobsOrm(database.url);
  await migrateJobs(orm, database.url);
  await orm.close();
  pool = createSqlPool({ databaseUrl: database.url, applicationName: 'overview-test' });
  // The buckets follow the clock: start early in a minute, so that the rows and the read fall
  // into the same one (the test checks it did).
  for (;;) {
    const { rows } = await pool.query<{ minute: Date; now: Date }>(`SELECT date_bin('1 minute', now(), 'epoch') AS minute, now()`);
    M = rows[0]!.minute.getTime();
    now = rows[0]!.now.getTime();
    if (now - M < 40_000) break;
    await new Promise((resolve) => setTimeout(resolve, M + MINUTE - now + 100));
  }
  const S = 'image.stylize';
  const C = 'system.canary';
  // Ended in the window: waits 4 s, run 66 s.
  await insertJob({
    jobType: S,
    status: 'succeeded',
    attempts: 1,
    events: [
      [null, 'queued', at(-10)],
      ['queued', 'running', at(-10, 4)],
      ['running', 'succeeded', at(-9, 10)],
    ],
  });
  // Two attempts: waits 1 s and 60 s (after its requeue), runs 2 s and 10 s.
  await insertJob({
    jobType: S,
    status: 'failed',
    attempts: 2,
    events: [
      [null, 'queued', at(-8)],
      ['queued', 'running', at(-8, 1)],
      ['running', 'queued', at(-8, 3)],
      ['queued', 'running', at(-7, 3)],
      ['running', 'failed', at(-7, 13)],
    ],
  });
  // Cancelled while queued: neither a wait nor a run.
  await insertJob({
    jobType: S,
    status: 'cancelled',
    attempts: 0,
    events: [
      [null, 'queued', at(-7, 20)],
      ['queued', 'cancelled', at(-7, 50)],
    ],
  });
  // Created before the window, claimed within it: its wait (65 min) counts.
  await insertJob({
    jobType: C,
    status: 'succeeded',
    attempts: 1,
    events: [
      [null, 'queued', at(-70)],
      ['queued', 'running', at(-5)],
      ['running', 'succeeded', at(-5, 0.5)],
    ],
  });
  // Entirely before the window: in no figure.
  await insertJob({
    jobType: C,
    status: 'succeeded',
    attempts: 1,
    events: [
      [null, 'queued', at(-90)],
      ['queued', 'running', at(-89)],
      ['running', 'succeeded', at(-88)],
    ],
  });
  // Running: two on w-1 (waits 60 s each), one on w-2 whose lease expired (wait 2 s).
  ids.f = await insertJob({
    jobType: S,
    status: 'running',
    attempts: 1,
    lease: { owner: 'w-1', expiresAt: now + 30_000 },
    events: [
      [null, 'queued', at(-3)],
      ['queued', 'running', at(-2)],
    ],
  });
  ids.g = await insertJob({
    jobType: C,
    queue: 'background',
    status: 'running',
    attempts: 1,
    lease: { owner: 'w-1', expiresAt: now + 50_000 },
    events: [
      [null, 'queued', at(-2, 30)],
      ['queued', 'running', at(-1, 30)],
    ],
  });
  await insertJob({
    jobType: S,
    status: 'running',
    attempts: 1,
    lease: { owner: 'w-2', expiresAt: now - 5_000 },
    events: [
      [null, 'queued', at(-4)],
      ['queued', 'running', at(-4, 2)],
    ],
  });
  // Queued: interactive due since M−6; background due since M−1, and one backing off for an hour.
  await insertJob({ jobType: S, status: 'queued', attempts: 0, nextAttemptAt: at(-6), events: [[null, 'queued', at(-6)]] });
  await insertJob({
    jobType: C,
    queue: 'background',
    status: 'queued',
    attempts: 0,
    nextAttemptAt: at(-1),
    events: [[null, 'queued', at(-1)]],
  });
  await insertJob({
    jobType: C,
    queue: 'background',
    status: 'queued',
    attempts: 0,
    nextAttemptAt: now + 3_600_000,
    events: [[null, 'queued', at(-3)]],
  });
  // Outbox: pending due since M−2 and one backing off, one processing, two dead, one published.
  await insertOutboxRow('pending', at(-2));
  await insertOutboxRow('pending', now + 3_600_000);
  await insertOutboxRow('processing', at(-1));
  await insertOutboxRow('dead', at(-30));
  await insertOutboxRow('dead', at(-20));
  await insertOutboxRow('published', at(-3));
  // Quota refusals: two users today by the daily allowance (one of them by in-flight too), one
  // this month by the monthly one; yesterday's and last month's are not the current periods.
  await pool.query(
    `WITH w AS (SELECT date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS day,
                       date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS month)
     INSERT INTO jobs.quota_hits (allowance, period_start, user_id)
     SELECT h.allowance, h.period_start, h.user_id FROM w, LATERAL (VALUES
       ('daily', w.day, 'u1'), ('daily', w.day, 'u2'), ('in_flight', w.day, 'u2'), ('monthly', w.month, 'u3'),
       ('daily', w.day - interval '1 day', 'u4'), ('in_flight', w.day - interval '1 day', 'u4'),
       ('monthly', (w.month AT TIME ZONE 'UTC' - interval '1 month') AT TIME ZONE 'UTC', 'u4')) AS h(allowance, period_start, user_id)`,
  );
}, 120_000);

afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

describe('overview read model - figures from known jobs', () => {
  it('counts, percentiles, depth, ages, backlog and workers, exactly', async () => {
    const buckets = overviewBuckets(60);
    const overview = toGetOverviewResponse(await readOverview(pool, buckets, LEASE_TTL_MS), buckets.bucketMinutes);
    const generated = overview.generatedAt!.getTime();
    expect(generated - (generated % MINUTE), 'the read fell into the minute the rows were written for').toBe(M);

    expect(overview.bucketMinutes).toBe(1);
    expect(overview.windowStart).toEqual(new Date(at(-59)));
    const { ThroughputBucket } = jobsAdminV1;
    expect(overview.throughput).toEqual([
      ThroughputBucket.fromPartial({ bucketStart: new Date(at(-9)), jobType: 'image.stylize', succeeded: 1 }),
      ThroughputBucket.fromPartial({ bucketStart: new Date(at(-7)), jobType: 'image.stylize', failed: 1, cancelled: 1 }),
      ThroughputBucket.fromPartial({ bucketStart: new Date(at(-5)), jobType: 'system.canary', succeeded: 1 }),
    ]);
    expect(overview.latencies).toEqual([
      {
        jobType: 'image.stylize',
        // [1 s, 2 s, 4 s, 60 s, 60 s]; nearest rank: the 3rd, the 5th, the 5th.
        queueWait: { count: 5, p50Ms: 4_000, p90Ms: 60_000, p99Ms: 60_000 },
        // [2 s, 10 s, 66 s]
        runTime: { count: 3, p50Ms: 10_000, p90Ms: 66_000, p99Ms: 66_000 },
      },
      {
        jobType: 'system.canary',
        // [60 s, 65 min]
        queueWait: { count: 2, p50Ms: 60_000, p90Ms: 3_900_000, p99Ms: 3_900_000 },
        runTime: { count: 1, p50Ms: 500, p90Ms: 500, p99Ms: 500 },
      },
    ]);
    expect(overview.queues).toEqual([
      { queue: jobsV1.JobQueue.INTERACTIVE, ready: 1, delayed: 0, running: 2, oldestReadyAgeMs: generated - at(-6) },
      { queue: jobsV1.JobQueue.BACKGROUND, ready: 1, delayed: 1, running: 1, oldestReadyAgeMs: generated - at(-1) },
    ]);
    expect(overview.outbox).toEqual({ pending: 2, processing: 1, dead: 2, oldestPendingAgeMs: generated - at(-2) });
    // Queued when each bucket ends: the canary created at M−70 waits until M−5; the job created
    // at M−8 is back in the queue from M−8:03 to M−7:03; q1 from M−6, f from M−3 to M−2, g from
    // M−2:30 to M−1:30, q3 from M−3 and q2 from M−1. An event at a bucket's end belongs to the next.
    const queuedAtEnd = (minute: number) => overview.queueHistory[59 + minute]!.queuedAtEnd;
    expect(overview.queueHistory).toHaveLength(60);
    expect(overview.queueHistory.map((bucket) => bucket.bucketStart!.getTime())).toEqual(Array.from({ length: 60 }, (_, i) => at(i - 59)));
    expect(queuedAtEnd(-59)).toBe(1);
    expect(queuedAtEnd(-9)).toBe(1);
    expect(queuedAtEnd(-8)).toBe(2);
    expect(queuedAtEnd(-7)).toBe(1);
    expect(queuedAtEnd(-6)).toBe(2);
    expect(queuedAtEnd(-5)).toBe(1);
    expect(queuedAtEnd(-4)).toBe(1);
    expect(queuedAtEnd(-3)).toBe(3);
    expect(queuedAtEnd(-2)).toBe(3);
    expect(queuedAtEnd(-1)).toBe(3);
    expect(queuedAtEnd(0)).toBe(3);
    // The waits the claims of each bucket ended, all types together.
    const waits = Object.fromEntries(
      overview.queueHistory
        .filter((bucket) => bucket.queueWait!.count > 0)
        .map((bucket) => [(bucket.bucketStart!.getTime() - M) / MINUTE, bucket.queueWait]),
    );
    const one = (ms: number) => ({ count: 1, p50Ms: ms, p90Ms: ms, p99Ms: ms });
    expect(waits).toEqual({
      '-10': one(4_000),
      '-8': one(1_000),
      '-7': one(60_000),
      '-5': one(3_900_000),
      '-4': one(2_000),
      '-2': one(60_000),
      '-1': one(60_000),
    });
    expect(overview.expiredLeases).toBe(1);
    const today = new Date(generated - (generated % (24 * 3_600_000)));
    expect(overview.quotaHits).toEqual({
      dayStart: today,
      monthStart: new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), 1)),
      dailyUsers: 2,
      monthlyUsers: 1,
      inFlightUsers: 1,
    });
    // w-2's only lease has expired: it is not live. w-1 renewed last for the lease ending at now + 50 s.
    expect(overview.workers).toEqual([
      {
        workerId: 'w-1',
        lastLeaseRenewalAt: new Date(now + 50_000 - LEASE_TTL_MS),
        jobs: [
          { jobId: ids.f, jobType: 'image.stylize', attempt: 1, startedAt: new Date(at(-2)), leaseExpiresAt: new Date(now + 30_000) },
          { jobId: ids.g, jobType: 'system.canary', attempt: 1, startedAt: new Date(at(-1, 30)), leaseExpiresAt: new Date(now + 50_000) },
        ],
      },
    ]);
  });

  it('a longer window counts the same events in wider buckets', async () => {
    const buckets = overviewBuckets(1440);
    const overview = await readOverview(pool, buckets, LEASE_TTL_MS);
    const quarter = 15 * MINUTE;
    const bucketOf = (ms: number) => new Date(ms - (ms % quarter));
    expect(overview.windowStart).toEqual(new Date(bucketOf(M).getTime() - 95 * quarter));
    // The job that ended at M−88 is inside a 24 h window.
    const ended = [at(-88), at(-9, 10), at(-7, 13), at(-7, 50), at(-5, 0.5)];
    const total = overview.throughput.reduce((sum, row) => sum + row.succeeded + row.failed + row.cancelled, 0);
    expect(total).toBe(ended.length);
    for (const row of overview.throughput) expect(row.bucketStart.getTime() % quarter).toBe(0);
    expect(overview.latencies.find((l) => l.jobType === 'system.canary')!.runTime.count).toBe(2);
    expect(overview.queueHistory).toHaveLength(96);
    // Before M−70 the canary was not yet created, and nothing else was queued.
    const queuedAt = (ms: number) => overview.queueHistory.find((b) => b.bucketStart.getTime() + quarter > ms)!.queuedAtEnd;
    expect(queuedAt(bucketOf(at(-90)).getTime() - quarter)).toBe(0);
    expect(overview.queueHistory.at(-1)!.queuedAtEnd).toBe(3);
    expect(overview.queueHistory.reduce((sum, bucket) => sum + bucket.queueWait.count, 0)).toBe(8);
  });
});

describe('GetOverview - the RPC', () => {
  let h: JobsHarness;
  beforeAll(async () => {
    h = await startJobsHarness({}, { peers: false });
  }, 60_000);
  afterAll(async () => {
    await h?.stop();
  });

  it('refuses a window outside 60–1440 minutes, naming window_minutes', async () => {
    for (const windowMinutes of [0, 59, 1441]) {
      expect(await refusal(h.admin.getOverview({ windowMinutes }))).toMatchObject({
        code: ErrorCode.INVALID_ARGUMENT,
        field: 'window_minutes',
        message: expect.stringContaining('window_minutes: must be an integer between 60 and 1440'),
      });
    }
  });

  it('answers an empty platform with both queues and no workers', async () => {
    const overview = await h.admin.getOverview({ windowMinutes: 180 });
    expect(overview).toMatchObject({
      bucketMinutes: 1,
      throughput: [],
      latencies: [],
      workers: [],
      expiredLeases: 0,
      quotaHits: { dailyUsers: 0, monthlyUsers: 0, inFlightUsers: 0 },
    });
    expect(overview.queues.map((q) => q.queue)).toEqual([jobsV1.JobQueue.INTERACTIVE, jobsV1.JobQueue.BACKGROUND]);
  });
});

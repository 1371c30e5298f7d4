import { inTransaction, type Queryable, type SqlPool } from '@atelier/db';
import type { OverviewBuckets } from '../domain/overview-window.js';
import {
  NO_DURATIONS,
  queueHistory,
  type BucketWaits,
  type Percentiles,
  type QueueBucket,
  type QueueFlow,
} from '../domain/queue-history.js';
import { selectQuotaHitCounts, type QuotaHitCounts } from './quota-hits-sql.js';
import { readQueueStats, type QueueStats } from './queue-stats-sql.js';

/**
 * The operators' overview (GetOverview), read from the jobs tables alone. The users the quota
 * refused are counted over the allowances' own periods (the UTC day, the UTC month:
 * db/quota-hits-sql.ts), not over the window.
 *
 * The window figures come from jobs.job_events only. Retention moves a job's events into
 * jobs.job_histories once the job has been terminal for JOB_EVENTS_RETENTION_DAYS (at least 1
 * day when it prunes at all, 90 by default), and only then. Every event within a window of at
 * most 24 h belongs to a job that is still in flight or ended within the window, so none of
 * that job's events (the ones before the window included) has been archived yet.
 */

export interface OverviewWindow {
  generatedAt: Date;
  windowStart: Date;
}

export interface ThroughputRow {
  bucketStart: Date;
  jobType: string;
  succeeded: number;
  failed: number;
  cancelled: number;
}

export interface LatencyRow {
  jobType: string;
  queueWait: Percentiles;
  runTime: Percentiles;
}

export interface LeaseRow {
  workerId: string;
  jobId: string;
  jobType: string;
  attempt: number;
  startedAt: Date;
  leaseExpiresAt: Date;
  renewedAt: Date;
}

export interface Overview extends OverviewWindow {
  throughput: ThroughputRow[];
  latencies: LatencyRow[];
  leases: LeaseRow[];
  stats: QueueStats;
  queueHistory: QueueBucket[];
  quotaHits: QuotaHitCounts;
}

/**
 * Where the window starts: the first of `bucketCount` buckets aligned on the epoch, the last of
 * which holds now. now() is the transaction's start, the same instant for every statement of
 * readOverview.
 */
export async function selectOverviewWindow(db: Queryable, buckets: OverviewBuckets): Promise<OverviewWindow> {
  const { rows } = await db.query<{ generated_at: Date; window_start: Date }>({
    name: 'overview.window',
    text: `SELECT now() AS generated_at,
                  date_bin($1::int * interval '1 minute', now(), 'epoch') - ($2::int - 1) * $1::int * interval '1 minute' AS window_start`,
    values: [buckets.bucketMinutes, buckets.bucketCount],
  });
  return { generatedAt: rows[0]!.generated_at, windowStart: rows[0]!.window_start };
}

/**
 * Jobs ended per bucket, job type and outcome: the terminal events since windowStart (each job
 * has exactly one, the transition trigger refusing any change after it), found through
 * job_events_occurred_idx, each one's job type read by primary key. A subquery, not a join: for
 * a join the planner hashes the whole generation_jobs table (110 ms for an hour of a 200 k-jobs
 * day, against 10 ms by key; bench/overview.ts).
 */
export async function selectThroughput(db: Queryable, windowStart: Date, bucketMinutes: number): Promise<ThroughputRow[]> {
  const { rows } = await db.query<{ bucket_start: Date; job_type: string; succeeded: string; failed: string; cancelled: string }>({
    name: 'overview.throughput',
    text: `SELECT date_bin($2::int * interval '1 minute', e.occurred_at, 'epoch') AS bucket_start,
                  (SELECT j.job_type FROM jobs.generation_jobs j WHERE j.id = e.job_id) AS job_type,
                  count(*) FILTER (WHERE e.to_status = 'succeeded') AS succeeded,
                  count(*) FILTER (WHERE e.to_status = 'failed') AS failed,
                  count(*) FILTER (WHERE e.to_status = 'cancelled') AS cancelled
             FROM jobs.job_events e
            WHERE e.occurred_at >= $1 AND e.to_status IN ('succeeded', 'failed', 'cancelled')
            GROUP BY 1, 2
            ORDER BY 1, 2`,
    values: [windowStart, bucketMinutes],
  });
  return rows.map((row) => ({
    bucketStart: row.bucket_start,
    jobType: row.job_type,
    succeeded: Number(row.succeeded),
    failed: Number(row.failed),
    cancelled: Number(row.cancelled),
  }));
}

/**
 * Queue wait and run time percentiles per job type, and the waits per bucket (all types), nearest
 * rank (percentile_disc: always a duration that was observed). Each interval is a pair of
 * consecutive events of one job, measured at its end, which falls within the window: a claim
 * (queued → running) ends a wait that began with the event before it (the creation or a requeue:
 * the state machine puts a job in `queued` only so); an event leaving `running` ends the attempt
 * that the claim before it began. The event before is the job's previous one by id, one backward
 * step on job_events_job_idx, with the job's type by primary key in the same step: joined outside
 * it, the planner hashes the whole generation_jobs table instead (3× slower on 600 k jobs, and
 * growing with them). Both groupings come from the one pass over the pairs (GROUPING SETS).
 */
export async function selectLatencies(
  db: Queryable,
  windowStart: Date,
  bucketMinutes: number,
): Promise<{ latencies: LatencyRow[]; bucketWaits: BucketWaits[] }> {
  const { rows } = await db.query<{
    job_type: string | null;
    measure: 'wait' | 'run';
    bucket_start: Date | null;
    count: string;
    percentiles: string[];
  }>({
    name: 'overview.latencies',
    text: `WITH ends AS (
             SELECT e.job_id, e.id, e.occurred_at, CASE WHEN e.to_status = 'running' THEN 'wait' ELSE 'run' END AS measure,
                    date_bin($2::int * interval '1 minute', e.occurred_at, 'epoch') AS bucket_start
               FROM jobs.job_events e
              WHERE e.occurred_at >= $1 AND (e.to_status = 'running' OR e.from_status = 'running'))
           SELECT p.job_type, x.measure, x.bucket_start, count(*) AS count,
                  percentile_disc(ARRAY[0.5, 0.9, 0.99]) WITHIN GROUP (
                    ORDER BY floor(extract(epoch FROM x.occurred_at - p.occurred_at) * 1000)::bigint) AS percentiles
             FROM ends x
            CROSS JOIN LATERAL (
                   SELECT b.occurred_at, j.job_type FROM jobs.job_events b
                     JOIN jobs.generation_jobs j ON j.id = b.job_id
                    WHERE b.job_id = x.job_id AND b.id < x.id
                    ORDER BY b.id DESC LIMIT 1) p
            GROUP BY GROUPING SETS ((p.job_type, x.measure), (x.measure, x.bucket_start))
           HAVING GROUPING(p.job_type) = 0 OR x.measure = 'wait'
            ORDER BY 1, 2, 3`,
    values: [windowStart, bucketMinutes],
  });
  const byType = new Map<string, LatencyRow>();
  const bucketWaits: BucketWaits[] = [];
  for (const row of rows) {
    const [p50, p90, p99] = row.percentiles.map(Number);
    const figures: Percentiles = { count: Number(row.count), p50Ms: p50!, p90Ms: p90!, p99Ms: p99! };
    if (row.job_type === null) {
      bucketWaits.push({ bucketStart: row.bucket_start!, queueWait: figures });
      continue;
    }
    const latency = byType.get(row.job_type) ?? { jobType: row.job_type, queueWait: NO_DURATIONS, runTime: NO_DURATIONS };
    byType.set(row.job_type, row.measure === 'wait' ? { ...latency, queueWait: figures } : { ...latency, runTime: figures });
  }
  return { latencies: [...byType.values()], bucketWaits };
}

/**
 * The net flow into `queued` per bucket: events entering it (creations, requeues, retries) less
 * events leaving it (claims, cancels of queued jobs), on job_events_occurred_idx.
 */
export async function selectQueueFlows(db: Queryable, windowStart: Date, bucketMinutes: number): Promise<QueueFlow[]> {
  const { rows } = await db.query<{ bucket_start: Date; net_queued: string }>({
    name: 'overview.queue_flows',
    text: `SELECT date_bin($2::int * interval '1 minute', occurred_at, 'epoch') AS bucket_start,
                  count(*) FILTER (WHERE to_status = 'queued') - count(*) FILTER (WHERE from_status = 'queued') AS net_queued
             FROM jobs.job_events
            WHERE occurred_at >= $1 AND (to_status = 'queued' OR from_status = 'queued')
            GROUP BY 1
            ORDER BY 1`,
    values: [windowStart, bucketMinutes],
  });
  return rows.map((row) => ({ bucketStart: row.bucket_start, netQueued: Number(row.net_queued) }));
}

/**
 * The unexpired leases, by worker then claim time, from generation_jobs_running_lease_idx. A
 * lease is taken (claim) or extended (heartbeat) as now() + LEASE_TTL_MS, so it was last renewed
 * its expiry minus the TTL: every replica runs with the one TTL the deployment sets.
 */
export async function selectLiveLeases(db: Queryable, leaseTtlMs: number): Promise<LeaseRow[]> {
  const { rows } = await db.query<{
    lease_owner: string;
    id: string;
    job_type: string;
    attempt_count: number;
    started_at: Date;
    lease_expires_at: Date;
    renewed_at: Date;
  }>({
    name: 'overview.live_leases',
    text: `SELECT lease_owner, id, job_type, attempt_count, started_at, lease_expires_at,
                  lease_expires_at - $1::int * interval '1 millisecond' AS renewed_at
             FROM jobs.generation_jobs
            WHERE status = 'running' AND lease_expires_at > now()
            ORDER BY lease_owner, started_at, id`,
    values: [leaseTtlMs],
  });
  return rows.map((row) => ({
    workerId: row.lease_owner,
    jobId: row.id,
    jobType: row.job_type,
    attempt: row.attempt_count,
    startedAt: row.started_at,
    leaseExpiresAt: row.lease_expires_at,
    renewedAt: row.renewed_at,
  }));
}

/** The first statements of readOverview's transaction (exported for bench/overview.ts). */
export async function setOverviewTransaction(client: Queryable): Promise<void> {
  await client.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
  // The latencies' estimated cost crosses jit_above_cost on a busy day: compiling then takes
  // 20–25 ms of a statement whose rows are index lookups, and saves nothing.
  await client.query('SET LOCAL jit = off');
}

/**
 * Every figure of the overview in one read-only REPEATABLE READ transaction: one snapshot and one
 * now(), so the counts agree with each other and every age is measured from generatedAt.
 */
export async function readOverview(pool: SqlPool, buckets: OverviewBuckets, leaseTtlMs: number): Promise<Overview> {
  return inTransaction(pool, async (client) => {
    await setOverviewTransaction(client);
    const window = await selectOverviewWindow(client, buckets);
    const { bucketMinutes, bucketCount } = buckets;
    const throughput = await selectThroughput(client, window.windowStart, bucketMinutes);
    const { latencies, bucketWaits } = await selectLatencies(client, window.windowStart, bucketMinutes);
    const flows = await selectQueueFlows(client, window.windowStart, bucketMinutes);
    const leases = await selectLiveLeases(client, leaseTtlMs);
    const stats = await readQueueStats(client);
    const quotaHits = await selectQuotaHitCounts(client);
    const queuedNow = stats.queues.reduce((sum, queue) => sum + queue.ready + queue.delayed, 0);
    return {
      ...window,
      throughput,
      latencies,
      leases,
      stats,
      queueHistory: queueHistory(window.windowStart, bucketMinutes, bucketCount, queuedNow, flows, bucketWaits),
      quotaHits,
    };
  });
}

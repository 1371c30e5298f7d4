import { inTransaction, type SqlPool } from '@atelier/db';
import type { JobRow, OutboxSubjects } from '../job-row.js';
import {
  CLAIMED_OUTBOX_JOIN,
  DISPATCH_OUTBOX,
  LIFECYCLE_OUTBOX,
  PROVIDER_CANCEL_OUTBOX,
  productEventParamsAt,
  productEventValues,
  statusIs,
} from './transition-sql.js';

/** A running job whose lease expired, as locked for reaping. */
export interface ExpiredLease {
  id: string;
  job_type: string;
  attempt_count: number;
  max_attempts: number;
  /** Leases of this job the reaper took before (its job_events). */
  earlier_lease_expiries: number;
}

export interface ReapDecision {
  jobId: string;
  /** true: queued again after delayMs; false: failed with LEASE_EXPIRED. */
  requeue: boolean;
  delayMs: number;
}

/**
 * running → queued | failed for up to `batchSize` expired leases (a worker crashed, hung or lost
 * its network), in one transaction: the expired rows are locked FOR UPDATE SKIP LOCKED, so any
 * number of replicas reap at once and each lease is reaped once; `decide` (the retry policy)
 * says requeue or fail per job; one statement applies the decisions with their events, the new
 * dispatches, the lifecycle events and the provider cancels. The lease is checked again there,
 * so a heartbeat that got in first keeps its job. Answers the reaped rows.
 */
export function reapExpiredLeases(
  pool: SqlPool,
  batchSize: number,
  decide: (expired: ExpiredLease) => ReapDecision,
  subjects: OutboxSubjects,
): Promise<JobRow[]> {
  return inTransaction(pool, async (client) => {
    const { rows: expired } = await client.query<ExpiredLease>({
      name: 'jobs.reap_lock_expired',
      text: `SELECT j.id, j.job_type, j.attempt_count, j.max_attempts,
                    (SELECT count(*)::int FROM jobs.job_events e
                      WHERE e.job_id = j.id AND e.actor = 'reaper' AND e.error_code = 'LEASE_EXPIRED') AS earlier_lease_expiries
               FROM jobs.generation_jobs j
              WHERE j.status = 'running' AND j.lease_expires_at < now()
              ORDER BY j.lease_expires_at, j.id
              LIMIT $1
              FOR UPDATE OF j SKIP LOCKED`,
      values: [batchSize],
    });
    if (expired.length === 0) return [];
    const decisions = expired.map(decide);
    const { rows } = await client.query<JobRow>({
      name: 'jobs.reap',
      text: `WITH decisions AS (
               SELECT * FROM unnest($1::uuid[], $2::boolean[], $3::int[]) AS d(id, requeue, delay_ms)),
             reaped AS (
               UPDATE jobs.generation_jobs j
                  SET status = CASE WHEN d.requeue THEN 'queued' ELSE 'failed' END,
                      progress = CASE WHEN d.requeue THEN 0 ELSE j.progress END,
                      started_at = CASE WHEN d.requeue THEN NULL ELSE j.started_at END,
                      completed_at = CASE WHEN d.requeue THEN NULL ELSE now() END,
                      error_code = CASE WHEN d.requeue THEN NULL ELSE 'LEASE_EXPIRED' END,
                      error_message = CASE WHEN d.requeue THEN NULL
                                      ELSE 'The generation stopped responding and was given up after its last attempt.' END,
                      internal_error_message = 'lease of ' || j.lease_owner || ' expired at ' || j.lease_expires_at,
                      next_attempt_at = CASE WHEN d.requeue THEN now() + d.delay_ms * interval '1 millisecond' ELSE j.next_attempt_at END,
                      lease_owner = NULL, lease_expires_at = NULL, version = j.version + 1, updated_at = now()
                 FROM decisions d
                WHERE j.id = d.id AND ${statusIs('j', 'running')} AND j.lease_expires_at < now()
               RETURNING j.*),
             event AS (
               INSERT INTO jobs.job_events (job_id, from_status, to_status, attempt, actor, error_code)
               SELECT id, 'running', status, attempt_count, 'reaper', 'LEASE_EXPIRED' FROM reaped),
             dispatch AS (${DISPATCH_OUTBOX(`(SELECT * FROM reaped WHERE status = 'queued')`, '$4', '$5', '$8')}),
             announce AS (${LIFECYCLE_OUTBOX(`(SELECT * FROM reaped WHERE status = 'failed')`, `$6 || 'failed'`, productEventParamsAt(9), '$8')}),
             provider_cancel AS (${PROVIDER_CANCEL_OUTBOX(`(SELECT * FROM reaped WHERE status = 'failed')`, '$7', '$8')})
             SELECT r.*, claimed.claimed_outbox FROM reaped r
             ${CLAIMED_OUTBOX_JOIN(['dispatch', 'announce', 'provider_cancel'], 'r')}`,
      values: [
        decisions.map((d) => d.jobId),
        decisions.map((d) => d.requeue),
        decisions.map((d) => d.delayMs),
        subjects.dispatchInteractive,
        subjects.dispatchBackground,
        subjects.eventPrefix,
        subjects.providerCancel,
        subjects.claimFor ?? null,
        ...productEventValues(subjects),
      ],
    });
    return rows;
  });
}

/**
 * Milliseconds until the earliest lease of a running job expires, by the database's clock (the
 * one leases are written and reaped with); negative when one has expired already, null when no
 * job runs. One step down the running-lease index.
 */
export async function msUntilNextLeaseExpiry(pool: SqlPool): Promise<number | null> {
  const { rows } = await pool.query<{ ms: number | null }>({
    name: 'jobs.next_lease_expiry',
    text: `SELECT ceil(extract(epoch FROM min(lease_expires_at) - clock_timestamp()) * 1000)::int AS ms
             FROM jobs.generation_jobs WHERE status = 'running'`,
  });
  return rows[0]?.ms ?? null;
}

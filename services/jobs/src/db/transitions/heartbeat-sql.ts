import type { Queryable } from '@atelier/db';
import { statusIs } from './transition-sql.js';

/** One worker's heartbeat for one running job, with the progress it has reached. */
export interface HeartbeatRequest {
  jobId: string;
  workerId: string;
  progress: number;
}

/** What a heartbeat found: the lease extended, or the job's status when the caller no longer holds it. */
export type HeartbeatResult = { extended: true; leaseExpiresAt: Date; advanced: boolean } | { extended: false; foundStatus: string | null };

/**
 * Extends each caller's lease and records its progress (never backwards), for many heartbeats in
 * one statement. Not a transition of status: no event. Where the caller no longer holds a running
 * lease (cancelled, reaped, finished), answers the status the statement found instead. Answers
 * per heartbeat, in request order. Two heartbeats of one job in one batch extend it once.
 */
export async function extendLeases(db: Queryable, requests: readonly HeartbeatRequest[], leaseTtlMs: number): Promise<HeartbeatResult[]> {
  const { rows } = await db.query<{ lease_expires_at: Date | null; advanced: boolean | null; found_status: string | null }>({
    name: 'jobs.heartbeat',
    text: `WITH beats AS (
             SELECT * FROM unnest($1::uuid[], $2::text[], $3::int[]) WITH ORDINALITY AS b(job_id, worker_id, progress, n)),
           extended AS (
             UPDATE jobs.generation_jobs j
                SET lease_expires_at = now() + $4::int * interval '1 millisecond',
                    version = j.version + CASE WHEN b.progress > j.progress THEN 1 ELSE 0 END,
                    progress = GREATEST(j.progress, b.progress), updated_at = now()
               FROM beats b
              WHERE j.id = b.job_id AND ${statusIs('j', 'running')} AND j.lease_owner = b.worker_id
             RETURNING j.id, j.lease_owner, j.lease_expires_at, j.version)
           SELECT e.lease_expires_at, e.version <> found.version AS advanced, found.status AS found_status
             FROM beats b
             LEFT JOIN extended e ON e.id = b.job_id AND e.lease_owner = b.worker_id
             LEFT JOIN jobs.generation_jobs found ON found.id = b.job_id
            ORDER BY b.n`,
    values: [requests.map((r) => r.jobId), requests.map((r) => r.workerId), requests.map((r) => r.progress), leaseTtlMs],
  });
  return rows.map((row) =>
    row.lease_expires_at
      ? { extended: true, leaseExpiresAt: row.lease_expires_at, advanced: row.advanced === true }
      : { extended: false, foundStatus: row.found_status },
  );
}

import type { Queryable } from '@atelier/db';
import { statusIs } from './transition-sql.js';

/** What a heartbeat found: the lease extended, or the job's status when the caller no longer holds it. */
export type HeartbeatResult = { extended: true; leaseExpiresAt: Date; advanced: boolean } | { extended: false; foundStatus: string | null };

/**
 * Extends the caller's lease and records progress (never backwards). Not a transition of status:
 * no event. When the caller no longer holds a running lease (cancelled, reaped, finished), answers
 * the status the statement found instead.
 */
export async function heartbeat(
  db: Queryable,
  request: { jobId: string; workerId: string; progress: number },
  leaseTtlMs: number,
): Promise<HeartbeatResult> {
  const { rows } = await db.query<{ lease_expires_at: Date | null; advanced: boolean | null; found_status: string | null }>({
    name: 'jobs.heartbeat',
    text: `WITH extended AS (
             UPDATE jobs.generation_jobs j
                SET lease_expires_at = now() + $4::int * interval '1 millisecond',
                    version = j.version + CASE WHEN $3 > j.progress THEN 1 ELSE 0 END,
                    progress = GREATEST(j.progress, $3), updated_at = now()
              WHERE j.id = $1 AND ${statusIs('j', 'running')} AND j.lease_owner = $2
             RETURNING j.lease_expires_at, j.version)
           SELECT e.lease_expires_at, e.version <> found.version AS advanced, found.status AS found_status
             FROM (SELECT 1) one
             LEFT JOIN extended e ON true
             LEFT JOIN jobs.generation_jobs found ON found.id = $1`,
    values: [request.jobId, request.workerId, request.progress, leaseTtlMs],
  });
  const row = rows[0]!;
  if (row.lease_expires_at) return { extended: true, leaseExpiresAt: row.lease_expires_at, advanced: row.advanced === true };
  return { extended: false, foundStatus: row.found_status };
}

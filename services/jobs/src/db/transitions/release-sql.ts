import type { Queryable } from '@atelier/db';
import type { JobRow, OutboxSubjects } from '../job-row.js';
import { CLAIMED_OUTBOX_JOIN, DISPATCH_OUTBOX, FOUND_COLUMNS, statusIs } from './transition-sql.js';
import { transitionResultOf, type FoundColumns, type TransitionResult } from './found-job-row.js';

/**
 * running → queued without charging the attempt: a worker shutting down hands the job back and
 * it is due again at once, with a new dispatch. Answers the queued row or the job as found.
 */
export async function release(
  db: Queryable,
  request: { jobId: string; workerId: string; reason: string },
  subjects: OutboxSubjects,
): Promise<TransitionResult> {
  const { rows } = await db.query<JobRow & FoundColumns>({
    name: 'jobs.release',
    text: `WITH released AS (
             UPDATE jobs.generation_jobs j
                SET status = 'queued', progress = 0, started_at = NULL, attempt_count = j.attempt_count - 1,
                    lease_owner = NULL, lease_expires_at = NULL, next_attempt_at = now(), version = j.version + 1, updated_at = now()
              WHERE j.id = $1 AND ${statusIs('j', 'running')} AND j.lease_owner = $2
             RETURNING j.*),
           event AS (
             INSERT INTO jobs.job_events (job_id, from_status, to_status, attempt, actor, detail)
             SELECT id, 'running', 'queued', attempt_count + 1, 'worker:' || $2, 'released: ' || $3 FROM released),
           dispatch AS (${DISPATCH_OUTBOX('released', '$4', '$5', '$6')})
           SELECT r.*, claimed.claimed_outbox, ${FOUND_COLUMNS}
             FROM (SELECT 1) one
             LEFT JOIN released r ON true
             ${CLAIMED_OUTBOX_JOIN(['dispatch'], 'r')}
             LEFT JOIN jobs.generation_jobs found ON found.id = $1 AND r.id IS NULL`,
    values: [
      request.jobId,
      request.workerId,
      request.reason.slice(0, 400),
      subjects.dispatchInteractive,
      subjects.dispatchBackground,
      subjects.claimFor ?? null,
    ],
  });
  return transitionResultOf(rows[0]!);
}

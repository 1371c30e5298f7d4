import type { Queryable } from '@atelier/db';
import type { JobRow, OutboxSubjects } from '../job-row.js';
import {
  CLAIMED_OUTBOX_JOIN,
  FOUND_COLUMNS,
  LIFECYCLE_OUTBOX,
  PROVIDER_CANCEL_OUTBOX,
  productEventParamsAt,
  productEventValues,
} from './transition-sql.js';
import { transitionResultOf, type FoundColumns, type TransitionResult } from './found-job-row.js';

/**
 * queued|running → cancelled for the job's owner (userId) or, with userId null, for an operator. Workers hear of it at once (the announcement is
 * pushed to them) and a running attempt stops; a prediction the job has — running, or waiting for
 * the next attempt — is cancelled at the vendor by whichever worker takes the task. A running job
 * of a type that cannot be cancelled while running (`nonCancellableTypes`) is left alone. Answers
 * the cancelled row (with the status it left) or the job as found, locked, at its latest version;
 * a job of another user is found as no job. `actor` is the event's (user:<id>, operator:<id>).
 */
export async function cancel(
  db: Queryable,
  request: { jobId: string; userId: string | null; actor: string; nonCancellableTypes: readonly string[] },
  subjects: OutboxSubjects,
): Promise<TransitionResult<JobRow & { from_status: string }>> {
  const { rows } = await db.query<JobRow & { from_status: string } & FoundColumns>({
    name: 'jobs.cancel',
    text: `WITH current_job AS (
             SELECT * FROM jobs.generation_jobs WHERE id = $1 AND ($2::varchar IS NULL OR user_id = $2) FOR UPDATE),
           cancelled AS (
             UPDATE jobs.generation_jobs j
                SET status = 'cancelled', completed_at = now(), cancel_requested_at = now(),
                    lease_owner = NULL, lease_expires_at = NULL, version = j.version + 1, updated_at = now()
               FROM current_job c
              WHERE j.id = c.id
                AND (c.status = 'queued' OR (c.status = 'running' AND NOT j.job_type = ANY($5::text[])))
             RETURNING j.*, c.status AS from_status),
           event AS (
             INSERT INTO jobs.job_events (job_id, from_status, to_status, attempt, actor)
             SELECT id, from_status, 'cancelled', attempt_count, $7 FROM cancelled),
           announce AS (${LIFECYCLE_OUTBOX('cancelled', `$3 || 'cancelled'`, productEventParamsAt(8), '$6')}),
           provider_cancel AS (${PROVIDER_CANCEL_OUTBOX('cancelled', '$4', '$6')})
           SELECT x.*, claimed.claimed_outbox, ${FOUND_COLUMNS}
             FROM (SELECT 1) one
             LEFT JOIN cancelled x ON true
             ${CLAIMED_OUTBOX_JOIN(['announce', 'provider_cancel'], 'x')}
             LEFT JOIN current_job found ON x.id IS NULL`,
    values: [
      request.jobId,
      request.userId,
      subjects.eventPrefix,
      subjects.providerCancel,
      request.nonCancellableTypes,
      subjects.claimFor ?? null,
      request.actor,
      ...productEventValues(subjects),
    ],
  });
  return transitionResultOf(rows[0]!);
}

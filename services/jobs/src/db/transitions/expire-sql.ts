import type { Queryable } from '@atelier/db';
import type { JobRow, OutboxSubjects } from '../job-row.js';
import {
  START_DEADLINE_ACTOR,
  START_DEADLINE_EXCEEDED,
  startDeadlineMessageSql,
  startDeadlinePassedSql,
} from '../../domain/start-deadline.js';
import { CLAIMED_OUTBOX_JOIN, LIFECYCLE_OUTBOX, productEventParamsAt, productEventValues } from './transition-sql.js';

/**
 * queued → cancelled for up to `batchSize` jobs whose start deadline passed before any worker
 * started them (domain/start-deadline.ts), oldest deadline first: with error code
 * START_DEADLINE_EXCEEDED and a message for the user, a job_events row by `system:deadline`, and
 * the job.cancelled lifecycle event — the way every terminal transition announces itself. No
 * provider cancel: a job the deadline binds never reached the vendor.
 *
 * Cancelled, not failed: nothing failed — the caller's own condition on the job was not met, as
 * when they cancel it themselves — and queued → cancelled is a legal move (SPEC §4.2), which
 * queued → failed is not. So the quota gives the job back like any cancel before submission.
 *
 * The due rows are locked FOR UPDATE SKIP LOCKED (any number of replicas sweep at once, each job
 * is ended once; one a claim or a cancel holds is left to it) and the condition is checked again
 * on the locked row, so a job a claim started in time is never ended. Answers the ended rows.
 */
export async function expireStartDeadlines(db: Queryable, batchSize: number, subjects: OutboxSubjects): Promise<JobRow[]> {
  const { rows } = await db.query<JobRow>({
    name: 'jobs.expire_start_deadlines',
    text: `WITH due AS (
             SELECT j.id FROM jobs.generation_jobs j
              -- The plain terms let the planner use generation_jobs_start_deadline_idx.
              WHERE j.status = 'queued' AND j.attempt_count = 0 AND j.start_deadline_at <= now() AND ${startDeadlinePassedSql('j')}
              ORDER BY j.start_deadline_at, j.id
              LIMIT $1
              FOR UPDATE SKIP LOCKED),
           expired AS (
             UPDATE jobs.generation_jobs j
                SET status = 'cancelled', completed_at = now(), error_code = '${START_DEADLINE_EXCEEDED}',
                    error_message = ${startDeadlineMessageSql('j')},
                    internal_error_message = 'no worker claimed the job by its start deadline ' || j.start_deadline_at,
                    version = j.version + 1, updated_at = now()
               FROM due
              WHERE j.id = due.id AND j.status = 'queued' AND ${startDeadlinePassedSql('j')}
             RETURNING j.*),
           event AS (
             INSERT INTO jobs.job_events (job_id, from_status, to_status, attempt, actor, error_code, detail)
             SELECT id, 'queued', 'cancelled', attempt_count, '${START_DEADLINE_ACTOR}', error_code,
                    'not started by its start deadline ' || start_deadline_at FROM expired),
           announce AS (${LIFECYCLE_OUTBOX('expired', `$2 || 'cancelled'`, productEventParamsAt(4), '$3')})
           SELECT x.*, claimed.claimed_outbox FROM expired x
           ${CLAIMED_OUTBOX_JOIN(['announce'], 'x')}`,
    values: [batchSize, subjects.eventPrefix, subjects.claimFor ?? null, ...productEventValues(subjects)],
  });
  return rows;
}

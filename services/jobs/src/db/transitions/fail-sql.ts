import type { Queryable } from '@atelier/db';
import type { JobRow, OutboxSubjects } from '../job-row.js';
import type { FailureDecision } from '../../domain/retry-policy.js';
import {
  CLAIMED_OUTBOX_JOIN,
  DISPATCH_OUTBOX,
  FOUND_COLUMNS,
  LIFECYCLE_OUTBOX,
  PROVIDER_CANCEL_OUTBOX,
  productEventParamsAt,
  productEventValues,
  statusIs,
} from './transition-sql.js';
import { foundJobOf, transitionResultOf, type FoundColumns, type FoundJob, type TransitionResult } from './found-job-row.js';

export interface FailureRecord {
  errorClass: string;
  errorCode: string;
  publicMessage: string;
  internalMessage: string;
}

/** What deciding a failed attempt needs: the job as it is, and its INTERNAL and VALIDATION failures so far. */
export interface FailingJob {
  found: FoundJob | null;
  row: JobRow | null;
  internalFailures: number;
  validationFailures: number;
}

/**
 * The read a failure decision is made from (retry-policy.ts, in the application: it needs the
 * job's definition). The write that follows is conditional on the lease and the attempt it was
 * read with, so a change in between refuses it rather than applying a decision made on stale facts.
 */
export async function readFailingJob(db: Queryable, jobId: string): Promise<FailingJob> {
  const { rows } = await db.query<JobRow & FoundColumns & { internal_failures: number; validation_failures: number }>({
    name: 'jobs.read_failing_job',
    text: `SELECT found.*, ${FOUND_COLUMNS}, failures.internal_failures, failures.validation_failures
             FROM jobs.generation_jobs found
             CROSS JOIN LATERAL (
               SELECT count(*) FILTER (WHERE e.error_class = 'internal')::int AS internal_failures,
                      count(*) FILTER (WHERE e.error_class = 'validation')::int AS validation_failures
                 FROM jobs.job_events e WHERE e.job_id = found.id) failures
            WHERE found.id = $1`,
    values: [jobId],
  });
  const row = rows[0];
  return row
    ? { found: foundJobOf(row), row, internalFailures: row.internal_failures, validationFailures: row.validation_failures }
    : { found: null, row: null, internalFailures: 0, validationFailures: 0 };
}

interface FailureTarget {
  name: string;
  /** The SET clause; $1–$5 are common (job, worker, attempt, error class, error code), the rest the target's own. */
  set: string;
  /** The outbox CTEs over `changed`; their last parameter is the relay that claims the rows (subjects.claimFor). */
  announce: string;
  /** The names of those CTEs. */
  outboxCtes: readonly string[];
  /** Its outbox CTEs write product events: their three parameters follow the claiming relay's (productEventParamsAt). */
  productEvents?: boolean;
  values(request: FailureRequest, decision: FailureDecision, subjects: OutboxSubjects): unknown[];
}

export interface FailureRequest {
  jobId: string;
  workerId: string;
  /** The attempt the decision was made for (readFailingJob): a progress report in between changes nothing that matters. */
  attempt: number;
  failure: FailureRecord;
  abandonProviderRequest: boolean;
}

const FAILURE_TARGETS: Readonly<Record<FailureDecision['outcome'], FailureTarget>> = {
  /**
   * running → queued: the attempt failed and is retried after the delay. Clears progress, start
   * and lease (the error stays in the event history and, for operators, internal_error_message);
   * the dispatch becomes due at next_attempt_at. The provider request stays recorded, so the next
   * attempt resumes it and pays nothing more — unless the worker gave it up (the vendor ended it,
   * or its output is unusable): then its id is cleared and the generation grows, so the next
   * attempt submits a fresh one.
   */
  requeue: {
    name: 'jobs.fail_requeue',
    set: `status = 'queued', progress = 0, started_at = NULL, error_code = NULL, error_message = NULL,
          internal_error_message = $6, lease_owner = NULL, lease_expires_at = NULL,
          provider_request_generation = j.provider_request_generation + CASE WHEN $8 AND j.provider_request_id IS NOT NULL THEN 1 ELSE 0 END,
          provider_request_id = CASE WHEN $8 THEN NULL ELSE j.provider_request_id END,
          next_attempt_at = now() + $7::int * interval '1 millisecond'`,
    announce: `dispatch AS (${DISPATCH_OUTBOX('changed', '$9', '$10', '$11')})`,
    outboxCtes: ['dispatch'],
    values: (request, decision, subjects) => [
      request.failure.internalMessage,
      decision.outcome === 'requeue' ? decision.delayMs : 0,
      request.abandonProviderRequest,
      subjects.dispatchInteractive,
      subjects.dispatchBackground,
    ],
  },
  /** running → failed, with the error, its announcement and the cancel of its prediction at the vendor. */
  fail: {
    name: 'jobs.fail_final',
    set: `status = 'failed', completed_at = now(), error_code = $5, error_message = $6, internal_error_message = $7,
          lease_owner = NULL, lease_expires_at = NULL`,
    announce: `announce AS (${LIFECYCLE_OUTBOX('changed', `$8 || 'failed'`, productEventParamsAt(11), '$10')}),
               provider_cancel AS (${PROVIDER_CANCEL_OUTBOX('changed', '$9', '$10')})`,
    outboxCtes: ['announce', 'provider_cancel'],
    values: (request, _decision, subjects) => [
      request.failure.publicMessage,
      request.failure.internalMessage,
      subjects.eventPrefix,
      subjects.providerCancel,
    ],
    productEvents: true,
  },
  /** running → cancelled by the worker itself (the attempt ended in a cancellation). */
  cancel: {
    name: 'jobs.fail_cancelled',
    set: `status = 'cancelled', completed_at = now(), cancel_requested_at = COALESCE(j.cancel_requested_at, now()),
          internal_error_message = $6, lease_owner = NULL, lease_expires_at = NULL`,
    announce: `announce AS (${LIFECYCLE_OUTBOX('changed', `$7 || 'cancelled'`, productEventParamsAt(10), '$9')}),
               provider_cancel AS (${PROVIDER_CANCEL_OUTBOX('changed', '$8', '$9')})`,
    outboxCtes: ['announce', 'provider_cancel'],
    values: (request, _decision, subjects) => [request.failure.internalMessage, subjects.eventPrefix, subjects.providerCancel],
    productEvents: true,
  },
};

/**
 * Applies a failure decision to a running job under the caller's lease, if the job is still in
 * the attempt the decision was made for: the status change, its event (with the error class,
 * code and, for operators, the start of the internal message: each attempt keeps its own, while
 * the job's internal_error_message is the last one's) and its outbox rows in one statement.
 * Answers the changed row or the job as found.
 */
export async function applyFailure(
  db: Queryable,
  request: FailureRequest,
  decision: FailureDecision,
  subjects: OutboxSubjects,
): Promise<TransitionResult> {
  const target = FAILURE_TARGETS[decision.outcome];
  const { rows } = await db.query<JobRow & FoundColumns>({
    name: target.name,
    text: `WITH changed AS (
             UPDATE jobs.generation_jobs j
                SET ${target.set}, version = j.version + 1, updated_at = now()
              WHERE j.id = $1 AND ${statusIs('j', 'running')} AND j.lease_owner = $2 AND j.attempt_count = $3
             RETURNING j.*),
           event AS (
             INSERT INTO jobs.job_events (job_id, from_status, to_status, attempt, actor, error_class, error_code, detail)
             SELECT id, 'running', status, attempt_count, 'worker:' || $2, $4, $5, left(internal_error_message, 500) FROM changed),
           ${target.announce}
           SELECT c.*, claimed.claimed_outbox, ${FOUND_COLUMNS}
             FROM (SELECT 1) one
             LEFT JOIN changed c ON true
             ${CLAIMED_OUTBOX_JOIN(target.outboxCtes, 'c')}
             LEFT JOIN jobs.generation_jobs found ON found.id = $1 AND c.id IS NULL`,
    values: [
      request.jobId,
      request.workerId,
      request.attempt,
      request.failure.errorClass,
      request.failure.errorCode,
      ...target.values(request, decision, subjects),
      subjects.claimFor ?? null,
      ...(target.productEvents ? productEventValues(subjects) : []),
    ],
  });
  return transitionResultOf(rows[0]!);
}

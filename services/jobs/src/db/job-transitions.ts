import type { Queryable } from '@atelier/db';
import type { JobRow, OutboxSubjects } from './job-row.js';
import {
  dispatchDedupeSql,
  dispatchPayloadSql,
  dispatchSubjectSql,
  eventDedupeSql,
  lifecyclePayloadSql,
  providerCancelDedupeSql,
  providerCancelPayloadSql,
} from './outbox-payloads.js';

/**
 * The one module that writes a job's status. Each function is one statement: a conditional
 * UPDATE that checks the current status (and the lease owner where a worker acts), the
 * job_events row, and the outbox row when a worker or others must hear of it — atomically, so
 * a transition, its history and its announcement can never be separated. A function returns
 * null when its condition did not hold; the caller reads the row to explain why. The database
 * refuses anything illegal a second time (CHECK constraints and the transition trigger).
 */

export interface NewJob {
  id: string;
  userId: string;
  petId: string | null;
  jobType: string;
  mediaKind: string;
  queue: 'interactive' | 'background';
  priority: number;
  modelId: string | null;
  styleId: string | null;
  inputAssetId: string | null;
  expectsOutput: boolean;
  prompt: string;
  negativePrompt: string;
  width: number | null;
  height: number | null;
  parameters: Record<string, unknown>;
  providerCode: string | null;
  providerModel: string | null;
  modelVersion: string | null;
  styleCode: string | null;
  maxAttempts: number;
  idempotencyKey: string;
  requestHash: Buffer;
  retryOfJobId: string | null;
  /** The creating request's trace (W3C headers); null when tracing is off. */
  traceContext: Record<string, string> | null;
}

async function one(db: Queryable, text: string, values: unknown[], name?: string): Promise<JobRow | null> {
  const result = await db.query<JobRow>(name ? { name, text, values } : { text, values });
  return result.rows[0] ?? null;
}

const LIFECYCLE_OUTBOX = (source: string, subjectParam: string) => `
  INSERT INTO jobs.outbox (aggregate_id, event_type, subject, dedupe_key, payload, trace_context)
  SELECT j.id, 'job.' || j.status, ${subjectParam}, ${eventDedupeSql('j')}, ${lifecyclePayloadSql('j')}, j.trace_context FROM ${source} j`;

/**
 * A job that ends without its output (cancelled, failed) while a prediction it paid for may still
 * run at the vendor: a task any worker executes, since the one that ran the job may be dead.
 */
const PROVIDER_CANCEL_OUTBOX = (source: string, subjectParam: string) => `
  INSERT INTO jobs.outbox (aggregate_id, event_type, subject, dedupe_key, payload, trace_context)
  SELECT j.id, 'job.provider_cancel', ${subjectParam}, ${providerCancelDedupeSql('j')}, ${providerCancelPayloadSql('j')}, j.trace_context
    FROM ${source} j WHERE j.provider_request_id IS NOT NULL`;

const DISPATCH_OUTBOX = (source: string, interactiveParam: string, backgroundParam: string) => `
  INSERT INTO jobs.outbox (aggregate_id, event_type, subject, dedupe_key, payload, available_at, trace_context)
  SELECT j.id, 'job.dispatch', ${dispatchSubjectSql('j', interactiveParam, backgroundParam)}, ${dispatchDedupeSql('j')},
         ${dispatchPayloadSql('j')}, j.next_attempt_at, j.trace_context
    FROM ${source} j`;

/**
 * Creates queued jobs, each with its creation event and its dispatch, in one statement (a batch
 * of concurrent creates, or one). A job whose (user, idempotency key) already exists — from an
 * earlier request or from this very batch — is skipped; only the inserted rows are returned.
 */
export async function insertJobs(
  db: Queryable,
  jobs: readonly NewJob[],
  actors: readonly string[],
  subjects: OutboxSubjects,
): Promise<JobRow[]> {
  if (jobs.length === 0) return [];
  const column = <K extends keyof NewJob>(key: K) => jobs.map((job) => job[key]);
  const result = await db.query<JobRow>({
    name: 'jobs.insert_jobs',
    text: `WITH incoming AS (
             SELECT * FROM unnest($1::uuid[], $2::text[], $3::uuid[], $4::text[], $5::text[], $6::text[], $7::smallint[],
                                  $8::uuid[], $9::uuid[], $10::uuid[], $11::boolean[], $12::text[], $13::text[], $14::int[],
                                  $15::int[], $16::jsonb[], $17::text[], $18::text[], $19::text[], $20::text[], $21::smallint[],
                                  $22::text[], $23::bytea[], $24::uuid[], $25::text[], $28::jsonb[])
               AS t(id, user_id, pet_id, job_type, media_kind, queue, priority, model_id, style_id, input_asset_id,
                    expects_output, prompt, negative_prompt, width, height, parameters, provider_code_snapshot,
                    provider_model_snapshot, model_version_snapshot, style_code_snapshot, max_attempts, idempotency_key,
                    request_hash, retry_of_job_id, actor, trace_context)),
           created AS (
             INSERT INTO jobs.generation_jobs
               (id, user_id, pet_id, job_type, media_kind, queue, priority, model_id, style_id, input_asset_id, expects_output,
                prompt, negative_prompt, width, height, parameters, provider_code_snapshot, provider_model_snapshot,
                model_version_snapshot, style_code_snapshot, status, max_attempts, idempotency_key, request_hash,
                retry_of_job_id, next_attempt_at, trace_context)
             SELECT id, user_id, pet_id, job_type, media_kind, queue, priority, model_id, style_id, input_asset_id, expects_output,
                    prompt, negative_prompt, width, height, parameters, provider_code_snapshot, provider_model_snapshot,
                    model_version_snapshot, style_code_snapshot, 'queued', max_attempts, idempotency_key, request_hash,
                    retry_of_job_id, now(), trace_context
               FROM incoming
             ON CONFLICT (user_id, idempotency_key) DO NOTHING
             RETURNING *),
           event AS (
             INSERT INTO jobs.job_events (job_id, from_status, to_status, attempt, actor)
             SELECT c.id, NULL, 'queued', 0, i.actor FROM created c JOIN incoming i ON i.id = c.id),
           dispatch AS (${DISPATCH_OUTBOX('created', '$26', '$27')})
           SELECT * FROM created`,
    values: [
      column('id'),
      column('userId'),
      column('petId'),
      column('jobType'),
      column('mediaKind'),
      column('queue'),
      column('priority'),
      column('modelId'),
      column('styleId'),
      column('inputAssetId'),
      column('expectsOutput'),
      column('prompt'),
      column('negativePrompt'),
      column('width'),
      column('height'),
      jobs.map((job) => JSON.stringify(job.parameters)),
      column('providerCode'),
      column('providerModel'),
      column('modelVersion'),
      column('styleCode'),
      column('maxAttempts'),
      column('idempotencyKey'),
      column('requestHash'),
      column('retryOfJobId'),
      actors,
      subjects.dispatchInteractive,
      subjects.dispatchBackground,
      jobs.map((job) => (job.traceContext ? JSON.stringify(job.traceContext) : null)),
    ],
  });
  return result.rows;
}

/** One worker asking for one job. */
export interface ClaimRequest {
  jobId: string;
  workerId: string;
}

/**
 * queued → running, for a batch of claims in one statement: the CAS on status makes concurrent
 * claims of one job produce exactly one lease (two claims of one job in the same batch match the
 * same row, which is updated once, for one of them). Counts the attempt; a job not yet due
 * (backoff) is not claimed. Answers the claimed rows; a caller whose job id is absent, or whose
 * row carries another lease owner, did not get it.
 */
export async function claimJobs(db: Queryable, requests: readonly ClaimRequest[], leaseTtlMs: number): Promise<JobRow[]> {
  const result = await db.query<JobRow>({
    name: 'jobs.claim_jobs',
    text: `WITH requested AS (
             SELECT * FROM unnest($1::uuid[], $2::text[]) AS r(job_id, worker_id)),
           claimed AS (
             UPDATE jobs.generation_jobs j
                SET status = 'running', attempt_count = j.attempt_count + 1, started_at = now(), progress = 0,
                    lease_owner = r.worker_id, lease_expires_at = now() + $3::int * interval '1 millisecond',
                    version = j.version + 1, updated_at = now()
               FROM requested r
              WHERE j.id = r.job_id AND j.status = 'queued' AND j.next_attempt_at <= now() AND j.attempt_count < j.max_attempts
             RETURNING j.*),
           event AS (
             INSERT INTO jobs.job_events (job_id, from_status, to_status, attempt, actor)
             SELECT id, 'queued', 'running', attempt_count, 'worker:' || lease_owner FROM claimed)
           SELECT * FROM claimed`,
    values: [requests.map((r) => r.jobId), requests.map((r) => r.workerId), leaseTtlMs],
  });
  return result.rows;
}

/**
 * Extends the lease and records progress (never backwards). Not a transition: no event. Returns
 * null when the caller no longer holds a running lease (cancelled, reaped, finished).
 */
export async function heartbeatJob(
  db: Queryable,
  jobId: string,
  workerId: string,
  progress: number,
  leaseTtlMs: number,
): Promise<{ lease_expires_at: Date } | null> {
  const result = await db.query<{ lease_expires_at: Date }>({
    name: 'jobs.heartbeat_job',
    text: `UPDATE jobs.generation_jobs
              SET lease_expires_at = now() + $4::int * interval '1 millisecond',
                  version = version + CASE WHEN $3 > progress THEN 1 ELSE 0 END,
                  progress = GREATEST(progress, $3), updated_at = now()
            WHERE id = $1 AND status = 'running' AND lease_owner = $2
           RETURNING lease_expires_at`,
    values: [jobId, workerId, progress, leaseTtlMs],
  });
  return result.rows[0] ?? null;
}

/** One worker's progress of one running job. */
export interface ProgressReport {
  jobId: string;
  workerId: string;
  progress: number;
}

/** What a progress report found: the job's status and lease owner as they were when it ran. */
export interface ProgressOutcome {
  job_id: string;
  /** The progress moved forward (WatchJob streams it). */
  advanced: boolean;
  status: string | null;
  lease_owner: string | null;
}

/**
 * Records the progress of many running jobs in one statement, each only under its reporter's
 * lease and only forward (a late report never moves it back; an equal one changes nothing, not
 * even the version). Not a transition: no event, and the lease is left to Heartbeat. Answers,
 * per report and in report order, whether it advanced and the job's status and lease owner, so
 * the caller can tell a worker which of its jobs no longer run under it.
 */
export async function reportProgress(db: Queryable, reports: readonly ProgressReport[]): Promise<ProgressOutcome[]> {
  const result = await db.query<ProgressOutcome>({
    name: 'jobs.report_progress',
    text: `WITH reported AS (
             SELECT * FROM unnest($1::uuid[], $2::text[], $3::int[]) WITH ORDINALITY AS r(job_id, worker_id, progress, n)),
           advanced AS (
             UPDATE jobs.generation_jobs j
                SET progress = r.progress, version = j.version + 1, updated_at = now()
               FROM reported r
              WHERE j.id = r.job_id AND j.status = 'running' AND j.lease_owner = r.worker_id AND r.progress > j.progress
             RETURNING j.id)
           SELECT r.job_id, EXISTS (SELECT 1 FROM advanced a WHERE a.id = r.job_id) AS advanced, j.status, j.lease_owner
             FROM reported r LEFT JOIN jobs.generation_jobs j ON j.id = r.job_id
            ORDER BY r.n`,
    values: [reports.map((r) => r.jobId), reports.map((r) => r.workerId), reports.map((r) => r.progress)],
  });
  return result.rows;
}

/**
 * Remembers the provider's request id before the worker polls it (L2). Setting the same id again
 * is a no-op that still answers the row; a different id once one is set answers null.
 */
export function recordProviderRequest(db: Queryable, jobId: string, workerId: string, providerRequestId: string): Promise<JobRow | null> {
  return one(
    db,
    `UPDATE jobs.generation_jobs
        SET provider_request_id = $3, updated_at = now()
      WHERE id = $1 AND status = 'running' AND lease_owner = $2
        AND (provider_request_id IS NULL OR provider_request_id = $3)
     RETURNING *`,
    [jobId, workerId, providerRequestId],
    'jobs.record_provider_request',
  );
}

/** One worker reporting one finished job. */
export interface CompleteRequest {
  jobId: string;
  workerId: string;
  outputAssetId: string | null;
}

/**
 * running → succeeded under each caller's lease, with the output, the event and the
 * announcement, for a batch of completions in one statement. Answers the rows that succeeded; a
 * request whose job is absent did not hold its lease any more, or gave no output for a job type
 * that must have one.
 */
export async function completeJobs(db: Queryable, requests: readonly CompleteRequest[], subjects: OutboxSubjects): Promise<JobRow[]> {
  const result = await db.query<JobRow>({
    name: 'jobs.complete_jobs',
    text: `WITH requested AS (
             SELECT * FROM unnest($1::uuid[], $2::text[], $3::uuid[]) AS r(job_id, worker_id, output_asset_id)),
           done AS (
             UPDATE jobs.generation_jobs j
                SET status = 'succeeded', progress = 100, completed_at = now(), output_asset_id = r.output_asset_id,
                    lease_owner = NULL, lease_expires_at = NULL, version = j.version + 1, updated_at = now()
               FROM requested r
              WHERE j.id = r.job_id AND j.status = 'running' AND j.lease_owner = r.worker_id
                AND (r.output_asset_id IS NOT NULL OR NOT j.expects_output)
             RETURNING j.*, r.worker_id),
           event AS (
             INSERT INTO jobs.job_events (job_id, from_status, to_status, attempt, actor)
             SELECT id, 'running', 'succeeded', attempt_count, 'worker:' || worker_id FROM done),
           announce AS (${LIFECYCLE_OUTBOX('done', `$4 || 'succeeded'`)})
           SELECT * FROM done`,
    values: [requests.map((r) => r.jobId), requests.map((r) => r.workerId), requests.map((r) => r.outputAssetId), subjects.eventPrefix],
  });
  return result.rows;
}

export interface FailureRecord {
  errorClass: string;
  errorCode: string;
  publicMessage: string;
  internalMessage: string;
}

/**
 * running → queued under the caller's lease: the attempt failed and will be retried after the
 * delay. Clears progress, start and lease (the error stays in the event history and, for
 * operators, in internal_error_message); the dispatch becomes due at next_attempt_at. The
 * provider request stays recorded, so the next attempt resumes it and pays nothing more —
 * unless the worker gave it up (the vendor ended it, or its output is unusable): then its id is
 * cleared and the generation grows, so the next attempt submits a fresh one.
 */
export function requeueJob(
  db: Queryable,
  jobId: string,
  workerId: string,
  delayMs: number,
  failure: FailureRecord,
  abandonProviderRequest: boolean,
  subjects: OutboxSubjects,
): Promise<JobRow | null> {
  return one(
    db,
    `WITH requeued AS (
       UPDATE jobs.generation_jobs
          SET status = 'queued', progress = 0, started_at = NULL, error_code = NULL, error_message = NULL,
              internal_error_message = $6, lease_owner = NULL, lease_expires_at = NULL,
              provider_request_generation = provider_request_generation + CASE WHEN $9 AND provider_request_id IS NOT NULL THEN 1 ELSE 0 END,
              provider_request_id = CASE WHEN $9 THEN NULL ELSE provider_request_id END,
              next_attempt_at = now() + $3::int * interval '1 millisecond', version = version + 1, updated_at = now()
        WHERE id = $1 AND status = 'running' AND lease_owner = $2
       RETURNING *),
     event AS (
       INSERT INTO jobs.job_events (job_id, from_status, to_status, attempt, actor, error_class, error_code)
       SELECT id, 'running', 'queued', attempt_count, 'worker:' || $2, $4, $5 FROM requeued),
     dispatch AS (${DISPATCH_OUTBOX('requeued', '$7', '$8')})
     SELECT * FROM requeued`,
    [
      jobId,
      workerId,
      delayMs,
      failure.errorClass,
      failure.errorCode,
      failure.internalMessage,
      subjects.dispatchInteractive,
      subjects.dispatchBackground,
      abandonProviderRequest,
    ],
    'jobs.requeue_job',
  );
}

/**
 * running → failed under the caller's lease, with the error, its event and announcement, and the
 * cancel of its prediction at the vendor when it has one.
 */
export function failJob(
  db: Queryable,
  jobId: string,
  workerId: string,
  failure: FailureRecord,
  subjects: OutboxSubjects,
): Promise<JobRow | null> {
  return one(
    db,
    `WITH failed AS (
       UPDATE jobs.generation_jobs
          SET status = 'failed', completed_at = now(), error_code = $4, error_message = $5, internal_error_message = $6,
              lease_owner = NULL, lease_expires_at = NULL, version = version + 1, updated_at = now()
        WHERE id = $1 AND status = 'running' AND lease_owner = $2
       RETURNING *),
     event AS (
       INSERT INTO jobs.job_events (job_id, from_status, to_status, attempt, actor, error_class, error_code)
       SELECT id, 'running', 'failed', attempt_count, 'worker:' || $2, $3, $4 FROM failed),
     announce AS (${LIFECYCLE_OUTBOX('failed', `$7 || 'failed'`)}),
     provider_cancel AS (${PROVIDER_CANCEL_OUTBOX('failed', '$8')})
     SELECT * FROM failed`,
    [
      jobId,
      workerId,
      failure.errorClass,
      failure.errorCode,
      failure.publicMessage,
      failure.internalMessage,
      subjects.eventPrefix,
      subjects.providerCancel,
    ],
    'jobs.fail_job',
  );
}

/** running → cancelled by the worker itself (the attempt ended in a cancellation). */
export function cancelRunningJob(
  db: Queryable,
  jobId: string,
  workerId: string,
  failure: FailureRecord,
  subjects: OutboxSubjects,
): Promise<JobRow | null> {
  return one(
    db,
    `WITH cancelled AS (
       UPDATE jobs.generation_jobs
          SET status = 'cancelled', completed_at = now(), cancel_requested_at = COALESCE(cancel_requested_at, now()),
              internal_error_message = $5, lease_owner = NULL, lease_expires_at = NULL, version = version + 1, updated_at = now()
        WHERE id = $1 AND status = 'running' AND lease_owner = $2
       RETURNING *),
     event AS (
       INSERT INTO jobs.job_events (job_id, from_status, to_status, attempt, actor, error_class, error_code)
       SELECT id, 'running', 'cancelled', attempt_count, 'worker:' || $2, $3, $4 FROM cancelled),
     announce AS (${LIFECYCLE_OUTBOX('cancelled', `$6 || 'cancelled'`)}),
     provider_cancel AS (${PROVIDER_CANCEL_OUTBOX('cancelled', '$7')})
     SELECT * FROM cancelled`,
    [jobId, workerId, failure.errorClass, failure.errorCode, failure.internalMessage, subjects.eventPrefix, subjects.providerCancel],
  );
}

/**
 * running → queued without charging the attempt: a worker shutting down hands the job back
 * and it is due again at once.
 */
export function releaseJob(
  db: Queryable,
  jobId: string,
  workerId: string,
  reason: string,
  subjects: OutboxSubjects,
): Promise<JobRow | null> {
  return one(
    db,
    `WITH released AS (
       UPDATE jobs.generation_jobs
          SET status = 'queued', progress = 0, started_at = NULL, attempt_count = attempt_count - 1,
              lease_owner = NULL, lease_expires_at = NULL, next_attempt_at = now(), version = version + 1, updated_at = now()
        WHERE id = $1 AND status = 'running' AND lease_owner = $2
       RETURNING *),
     event AS (
       INSERT INTO jobs.job_events (job_id, from_status, to_status, attempt, actor, detail)
       SELECT id, 'running', 'queued', attempt_count + 1, 'worker:' || $2, 'released: ' || $3 FROM released),
     dispatch AS (${DISPATCH_OUTBOX('released', '$4', '$5')})
     SELECT * FROM released`,
    [jobId, workerId, reason.slice(0, 400), subjects.dispatchInteractive, subjects.dispatchBackground],
  );
}

/**
 * queued|running → cancelled for the job's owner. Workers hear of it at once (the announcement is
 * pushed to them) and a running attempt stops; a prediction the job has — running, or waiting
 * for the next attempt — is cancelled at the vendor by whichever worker takes the task. Answers
 * the previous status too.
 */
export async function cancelJob(
  db: Queryable,
  jobId: string,
  userId: string,
  subjects: OutboxSubjects,
): Promise<(JobRow & { from_status: string }) | null> {
  const result = await db.query<JobRow & { from_status: string }>({
    text: `WITH current_job AS (
             SELECT id, status FROM jobs.generation_jobs WHERE id = $1 AND user_id = $2 FOR UPDATE),
           cancelled AS (
             UPDATE jobs.generation_jobs j
                SET status = 'cancelled', completed_at = now(), cancel_requested_at = now(),
                    lease_owner = NULL, lease_expires_at = NULL, version = j.version + 1, updated_at = now()
               FROM current_job c
              WHERE j.id = c.id AND c.status IN ('queued', 'running')
             RETURNING j.*, c.status AS from_status),
           event AS (
             INSERT INTO jobs.job_events (job_id, from_status, to_status, attempt, actor)
             SELECT id, from_status, 'cancelled', attempt_count, 'user:' || $2 FROM cancelled),
           announce AS (${LIFECYCLE_OUTBOX('cancelled', `$3 || 'cancelled'`)}),
           provider_cancel AS (${PROVIDER_CANCEL_OUTBOX('cancelled', '$4')})
           SELECT * FROM cancelled`,
    values: [jobId, userId, subjects.eventPrefix, subjects.providerCancel],
  });
  return result.rows[0] ?? null;
}

export interface ReapDecision {
  jobId: string;
  /** true: queued again after delayMs; false: failed with LEASE_EXPIRED. */
  requeue: boolean;
  delayMs: number;
}

/**
 * The reaper's running → queued | failed for leases that expired, applied to rows the caller
 * has locked (FOR UPDATE SKIP LOCKED) in the same transaction. The lease is checked again, so
 * a heartbeat that got in first keeps its job.
 */
export async function reapJobs(db: Queryable, decisions: readonly ReapDecision[], subjects: OutboxSubjects): Promise<JobRow[]> {
  if (decisions.length === 0) return [];
  const result = await db.query<JobRow>({
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
              WHERE j.id = d.id AND j.status = 'running' AND j.lease_expires_at < now()
             RETURNING j.*),
           event AS (
             INSERT INTO jobs.job_events (job_id, from_status, to_status, attempt, actor, error_code)
             SELECT id, 'running', status, attempt_count, 'reaper', 'LEASE_EXPIRED' FROM reaped),
           dispatch AS (${DISPATCH_OUTBOX(`(SELECT * FROM reaped WHERE status = 'queued')`, '$4', '$5')}),
           announce AS (${LIFECYCLE_OUTBOX(`(SELECT * FROM reaped WHERE status = 'failed')`, `$6 || 'failed'`)}),
           provider_cancel AS (${PROVIDER_CANCEL_OUTBOX(`(SELECT * FROM reaped WHERE status = 'failed')`, '$7')})
           SELECT * FROM reaped`,
    values: [
      decisions.map((d) => d.jobId),
      decisions.map((d) => d.requeue),
      decisions.map((d) => d.delayMs),
      subjects.dispatchInteractive,
      subjects.dispatchBackground,
      subjects.eventPrefix,
      subjects.providerCancel,
    ],
  });
  return result.rows;
}

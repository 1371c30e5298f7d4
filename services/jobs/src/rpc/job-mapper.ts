import { commonV1, type jobsAdminV1, jobsV1 } from '@atelier/contracts';
import type { JobEventRow, JobHistoryEntry, JobRow } from '../db/job-row.js';
import { errorClassMessage } from '../domain/error-class.js';
import { statusMessage } from '../domain/job-state-machine.js';
import { jobTimings } from '../domain/job-timings.js';
import type { JobAttempt } from '../domain/job-attempts.js';
import { retentionTimesOf } from './job-retention-times.js';

export function queueMessage(queue: string): jobsV1.JobQueue {
  return queue === 'background' ? jobsV1.JobQueue.BACKGROUND : jobsV1.JobQueue.INTERACTIVE;
}

export function storedQueue(queue: jobsV1.JobQueue): 'interactive' | 'background' | undefined {
  if (queue === jobsV1.JobQueue.INTERACTIVE) return 'interactive';
  if (queue === jobsV1.JobQueue.BACKGROUND) return 'background';
  return undefined;
}

const opt = <T>(value: T | null): T | undefined => value ?? undefined;

/**
 * Why a queued job is waiting again, when its last attempt failed: the code of that failure and
 * a message that says it will be tried again. A final failure's message (error_message of a
 * failed job) never promises a retry; this one does, because the jobs service decided on one.
 */
function retryNotice(row: JobRow, events: readonly JobHistoryEntry[] | undefined): { errorCode: string; errorMessage: string } | undefined {
  if (row.status !== 'queued' || row.attempt_count === 0 || !events) return undefined;
  const last = events.at(-1);
  if (!last || last.from_status !== 'running' || last.to_status !== 'queued' || !last.error_code) return undefined;
  return {
    errorCode: last.error_code,
    errorMessage: `Attempt ${row.attempt_count} of ${row.max_attempts} did not succeed (${last.error_code}); it will be tried again shortly.`,
  };
}

/**
 * A job as users see it: no provider request id, no internal error, no lease. Timings come from
 * the transition history; without `events` (the execution API, which has no use for them) they
 * are left out rather than read for nothing.
 */
export function toJobMessage(
  row: JobRow,
  extras: { events?: readonly JobHistoryEntry[]; queuePosition?: number; now?: Date } = {},
): jobsV1.Job {
  const retry = retryNotice(row, extras.events);
  const events = extras.events?.map((e) => ({
    fromStatus: e.from_status,
    toStatus: e.to_status,
    attempt: e.attempt,
    errorCode: e.error_code,
    occurredAt: e.occurred_at,
  }));
  return {
    id: row.id,
    userId: row.user_id,
    petId: opt(row.pet_id),
    jobType: row.job_type,
    mediaKind: row.media_kind === 'video' ? commonV1.MediaKind.VIDEO : commonV1.MediaKind.IMAGE,
    queue: queueMessage(row.queue),
    priority: row.priority,
    modelId: opt(row.model_id),
    styleId: opt(row.style_id),
    inputAssetId: opt(row.input_asset_id),
    outputAssetId: opt(row.output_asset_id),
    outputSha256: opt(row.output_sha256),
    prompt: row.prompt,
    negativePrompt: row.negative_prompt,
    width: opt(row.width),
    height: opt(row.height),
    parameters: row.parameters,
    snapshot: row.provider_code_snapshot
      ? {
          providerCode: row.provider_code_snapshot,
          providerModel: row.provider_model_snapshot!,
          modelVersion: row.model_version_snapshot!,
          styleCode: opt(row.style_code_snapshot),
          effectiveParameters: opt(row.effective_parameters),
          effectivePrompt: opt(row.effective_prompt),
        }
      : undefined,
    status: statusMessage(row.status),
    progress: row.progress,
    queuePosition: row.status === 'queued' ? extras.queuePosition : undefined,
    attemptCount: row.attempt_count,
    maxAttempts: row.max_attempts,
    errorCode: opt(row.error_code) ?? retry?.errorCode,
    errorMessage: opt(row.error_message) ?? retry?.errorMessage,
    retryOfJobId: opt(row.retry_of_job_id),
    idempotencyKey: row.idempotency_key,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    startedAt: opt(row.started_at),
    completedAt: opt(row.completed_at),
    nextAttemptAt: row.next_attempt_at,
    cancelRequestedAt: opt(row.cancel_requested_at),
    timings: events ? jobTimings(row.created_at, row.completed_at, events, extras.now ?? new Date()) : undefined,
    version: row.version,
    startDeadlineAt: opt(row.start_deadline_at),
    // Older rows read before migration 0017 have none: the platform's key.
    credentialMode: row.credential_mode ?? 'platform_key',
    credentialId: opt(row.credential_id),
    ...retentionTimesOf(row),
  };
}

/** A job as operators see it: everything, internal error included. */
export function toAdminJobMessage(row: JobRow, events: readonly JobEventRow[]): jobsAdminV1.AdminJob {
  return {
    job: toJobMessage(row, { events }),
    internalErrorMessage: opt(row.internal_error_message),
    providerRequestId: opt(row.provider_request_id),
    leaseOwner: opt(row.lease_owner),
    leaseExpiresAt: opt(row.lease_expires_at),
    abandonedProviderRequests: row.provider_request_generation,
  };
}

export function toJobEventMessage(event: JobEventRow): jobsAdminV1.JobEvent {
  return {
    id: Number(event.id),
    jobId: event.job_id,
    fromStatus: event.from_status ? statusMessage(event.from_status) : jobsV1.JobStatus.UNSPECIFIED,
    toStatus: statusMessage(event.to_status),
    attempt: event.attempt,
    actor: event.actor,
    errorCode: opt(event.error_code),
    errorClass: errorClassMessage(event.error_class),
    occurredAt: event.occurred_at,
    detail: opt(event.detail),
  };
}

export function toJobAttemptMessage(attempt: JobAttempt): jobsAdminV1.JobAttempt {
  return {
    attempt: attempt.attempt,
    queuedAt: attempt.queuedAt,
    startedAt: attempt.startedAt,
    endedAt: attempt.endedAt,
    queuedWaitMs: attempt.queuedWaitMs,
    runMs: attempt.runMs,
    outcome: statusMessage(attempt.outcome),
    claimedBy: attempt.claimedBy ?? '',
    endedBy: attempt.endedBy,
    errorCode: attempt.errorCode,
    errorClass: errorClassMessage(attempt.errorClass ?? null),
    errorDetail: attempt.errorDetail,
  };
}

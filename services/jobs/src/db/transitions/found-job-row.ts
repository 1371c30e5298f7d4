import type { JobRow } from '../job-row.js';

/**
 * A job as the transition's statement found it when its condition did not hold (FOUND_COLUMNS),
 * or null when no such job exists. Enough to say why, without reading the row again.
 */
export interface FoundJob {
  status: string;
  leaseOwner: string | null;
  nextAttemptAt: Date;
  expectsOutput: boolean;
  providerRequestId: string | null;
  userId: string;
  jobType: string;
  /** A succeeded job's output and its SHA-256 (null otherwise, and for jobs completed before it was recorded). */
  outputAssetId: string | null;
  outputSha256: string | null;
  /** Queued past a start deadline that binds it (domain/start-deadline.ts): it will never start. */
  startDeadlinePassed: boolean;
}

/** The found_* columns of a transition's answer row. */
export interface FoundColumns {
  found_status: string | null;
  found_lease_owner: string | null;
  found_next_attempt_at: Date | null;
  found_expects_output: boolean | null;
  found_provider_request_id: string | null;
  found_user_id: string | null;
  found_job_type: string | null;
  found_output_asset_id: string | null;
  found_output_sha256: string | null;
  found_start_deadline_passed: boolean | null;
}

export function foundJobOf(columns: FoundColumns): FoundJob | null {
  if (columns.found_status === null) return null;
  return {
    status: columns.found_status,
    leaseOwner: columns.found_lease_owner,
    nextAttemptAt: columns.found_next_attempt_at!,
    expectsOutput: columns.found_expects_output!,
    providerRequestId: columns.found_provider_request_id,
    userId: columns.found_user_id!,
    jobType: columns.found_job_type!,
    outputAssetId: columns.found_output_asset_id,
    outputSha256: columns.found_output_sha256,
    startDeadlinePassed: columns.found_start_deadline_passed === true,
  };
}

/** What every transition answers: the changed row, or what was found instead. */
export type TransitionResult<Row = JobRow> = { changed: true; job: Row } | { changed: false; found: FoundJob | null };

/**
 * Splits a transition's answer row (the changed row's columns, null when nothing changed, beside
 * FOUND_COLUMNS) into its result.
 */
export function transitionResultOf<Row extends { id: string | null }>(answer: Row & FoundColumns): TransitionResult<Row> {
  if (answer.id !== null) return { changed: true, job: answer };
  return { changed: false, found: foundJobOf(answer) };
}

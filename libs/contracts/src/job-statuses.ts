import { JobStatus } from './gen/atelier/jobs/v1/jobs.js';
import { enumWords, type EnumWord } from './enum-words.js';

/*
 * Which job statuses are terminal is a fact about the contract's JobStatus, so it sits beside the
 * generated enum: every service that speaks the contract (jobs, the gateway, the worker's tests)
 * reads it from here. libs/errors, the other candidate, knows no contract and stays that way.
 */

/** How jobs stores a status and how the HTTP API and the logs spell it: `'queued'`, `'succeeded'` … */
export type JobStatusWord = EnumWord<typeof JobStatus>;

/** The words of JobStatus, both ways. */
export const JOB_STATUS_WORDS = enumWords(JobStatus);

/** A job that succeeded, failed or was cancelled never changes again (jobs' transition trigger refuses it). */
export const TERMINAL_JOB_STATUSES: ReadonlySet<JobStatus> = new Set([JobStatus.SUCCEEDED, JobStatus.FAILED, JobStatus.CANCELLED]);

/** Whether a status, given as the enum value or as its word, is terminal. */
export function isTerminalJobStatus(status: JobStatus | string): boolean {
  const value = typeof status === 'number' ? status : JOB_STATUS_WORDS.fromWord(status);
  return value !== undefined && TERMINAL_JOB_STATUSES.has(value);
}

import { jobsV1 } from '@atelier/contracts';

/**
 * The statuses of a job. Which moves between them are legal is decided in one place, the
 * database's transition trigger (migration 0001; transitions/transitions.integration.test.ts
 * checks it against SPEC §4.2). Each move is one statement in transitions/ (claim.ts, complete.ts,
 * fail.ts, release.ts, cancel.ts, reap.ts):
 *
 *   queued ──claim──▶ running ──complete──▶ succeeded
 *     │  ▲               │ ├──fail (no attempts left)──▶ failed
 *     │  └─fail / release / lease expired─┘ └──cancel──▶ cancelled
 *     └──cancel──▶ cancelled
 *
 * A terminal job never changes again; an operator's RetryJob makes a new job.
 */
export const JobStatus = {
  QUEUED: 'queued',
  RUNNING: 'running',
  SUCCEEDED: 'succeeded',
  FAILED: 'failed',
  CANCELLED: 'cancelled',
} as const;
export type JobStatus = (typeof JobStatus)[keyof typeof JobStatus];

export const TERMINAL_STATUSES: ReadonlySet<JobStatus> = new Set([JobStatus.SUCCEEDED, JobStatus.FAILED, JobStatus.CANCELLED]);

export function isTerminal(status: string): boolean {
  return TERMINAL_STATUSES.has(status as JobStatus);
}

const STATUS_MESSAGES: Readonly<Record<JobStatus, jobsV1.JobStatus>> = {
  queued: jobsV1.JobStatus.QUEUED,
  running: jobsV1.JobStatus.RUNNING,
  succeeded: jobsV1.JobStatus.SUCCEEDED,
  failed: jobsV1.JobStatus.FAILED,
  cancelled: jobsV1.JobStatus.CANCELLED,
};

export function statusMessage(status: string): jobsV1.JobStatus {
  return STATUS_MESSAGES[status as JobStatus] ?? jobsV1.JobStatus.UNSPECIFIED;
}

/** The stored status a filter names, or undefined for "any". */
export function storedStatus(status: jobsV1.JobStatus): JobStatus | undefined {
  for (const [stored, message] of Object.entries(STATUS_MESSAGES)) if (message === status) return stored as JobStatus;
  return undefined;
}

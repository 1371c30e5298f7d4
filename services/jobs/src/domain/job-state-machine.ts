import { jobsV1 } from '@atelier/contracts';

/**
 * The lifecycle of a job. The database enforces the same rules (CHECK constraints per status
 * and a transition trigger, see migrations); this table is the application's copy, used to
 * refuse an illegal move before any SQL runs.
 *
 *   queued ──claim──▶ running ──▶ succeeded | failed | cancelled
 *     │  ▲──retry / lease expired──┘
 *     └──cancel──▶ cancelled
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

const LEGAL_TRANSITIONS: ReadonlySet<string> = new Set([
  'queued→running', // claim
  'running→succeeded', // complete
  'running→failed', // fail (final or attempts spent), reaper with attempts spent
  'running→queued', // retry with backoff, reaper, release
  'queued→cancelled', // user cancel
  'running→cancelled', // user cancel; the worker learns it at its next heartbeat
]);

export function isLegalTransition(from: JobStatus, to: JobStatus): boolean {
  return LEGAL_TRANSITIONS.has(`${from}→${to}`);
}

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

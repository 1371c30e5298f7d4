import { JOB_STATUS_WORDS, isTerminalJobStatus, jobsV1, type JobStatusWord } from '@atelier/contracts';

/**
 * The statuses of a job, stored in the `status` column as the contract's words for them
 * (`'queued'` …, see JobStatusWord in @atelier/contracts, which also says which are terminal).
 * Which moves between them are legal is decided in one place, the database's transition trigger
 * (migration 0001; db/transitions/transitions.integration.test.ts checks it against SPEC §4.2).
 * Each move is one statement in db/transitions/ (claim-sql.ts, complete-sql.ts, fail-sql.ts,
 * release-sql.ts, cancel-sql.ts, reap-sql.ts):
 *
 *   queued ──claim──▶ running ──complete──▶ succeeded
 *     │  ▲               │ ├──fail (no attempts left)──▶ failed
 *     │  └─fail / release / lease expired─┘ └──cancel──▶ cancelled
 *     └──cancel──▶ cancelled
 *
 * A terminal job never changes again; an operator's RetryJob makes a new job.
 */
export type JobStatus = JobStatusWord;

export function isTerminal(status: string): boolean {
  return isTerminalJobStatus(status);
}

export function statusMessage(status: string): jobsV1.JobStatus {
  return JOB_STATUS_WORDS.fromWord(status) ?? jobsV1.JobStatus.UNSPECIFIED;
}

/** The stored status a filter names, or undefined for "any". */
export function storedStatus(status: jobsV1.JobStatus): JobStatus | undefined {
  return JOB_STATUS_WORDS.wordOf(status);
}

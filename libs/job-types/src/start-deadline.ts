/**
 * A create may say how long its job may wait for a worker: `startWithinSeconds` (REST) /
 * `start_within_seconds` (CreateJobRequest). A job no worker started by then is ended — cancelled
 * with error code START_DEADLINE_EXCEEDED — never sent to the vendor, never charged. The gateway's
 * body schema and the jobs service's validation both read these bounds, so they refuse alike.
 */
export const START_WITHIN_SECONDS = {
  min: 1,
  /** A day: a deadline further out is no deadline for an interactive product. */
  max: 86_400,
} as const;

/** The error code of a job ended by its start deadline (on the job, its event and its lifecycle event). */
export const START_DEADLINE_EXCEEDED = 'START_DEADLINE_EXCEEDED';

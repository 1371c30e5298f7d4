import { START_DEADLINE_EXCEEDED } from '@atelier/job-types';
import { providerChargedSql } from './provider-charges.js';

export { START_DEADLINE_EXCEEDED };

/** The actor of the job_events row of a job its start deadline ended. */
export const START_DEADLINE_ACTOR = 'system:deadline';

/**
 * Whether a job's start deadline (start_deadline_at, from CreateJob's start_within_seconds) has
 * passed and still binds it, in SQL over a generation_jobs row aliased `alias`.
 *
 * The deadline binds a job's first start only: while it has had no attempt (attempt_count = 0)
 * and nothing was ever sent to the vendor for it. A job queued again after a failed attempt
 * started in time and is retried whatever its deadline; a job a stopping worker handed back
 * (release gives the attempt back) is bound again unless it reached the vendor — so the deadline
 * never ends a job that may have been charged.
 *
 * A job it binds is never claimed (claim-sql.ts), counts for no quota (quota.ts) and is ended by
 * the start-deadline sweep (expire-sql.ts): cancelled, with error code START_DEADLINE_EXCEEDED.
 * False without a deadline. `now()` is the statement's transaction time, the clock every
 * transition reads.
 */
export function startDeadlinePassedSql(alias: string): string {
  return `coalesce(${alias}.start_deadline_at <= now() AND ${alias}.attempt_count = 0 AND NOT ${providerChargedSql(alias)}, false)`;
}

/** The message users see on a job its start deadline ended, in SQL over its row aliased `alias`. */
export function startDeadlineMessageSql(alias: string): string {
  return `'No worker could start this generation within the '
          || round(extract(epoch FROM ${alias}.start_deadline_at - ${alias}.created_at))::int
          || ' seconds it allowed (startWithinSeconds); it was not run and not charged.'`;
}

import { secondsToNextUtcDay } from '@atelier/errors';
import { providerChargedSql } from './provider-charges.js';
import { startDeadlinePassedSql } from './start-deadline.js';

/** The per-user limits of L3 (SPEC §4.3). */
export interface QuotaLimits {
  dailyLimit: number;
  maxInFlight: number;
  /** Retry-After for the in-flight limit: a job usually finishes within seconds. */
  inFlightRetryAfterSeconds: number;
}

export interface QuotaUsage {
  /** Jobs created since the start of the current UTC day that count (countsTowardDailyQuotaSql). */
  today: number;
  /** queued + running jobs (holdsInFlightSlotSql). */
  inFlight: number;
}

/** Which limit refused a create, when the user may try again, and what to tell them. */
export interface QuotaRefusal {
  limit: 'daily' | 'in_flight';
  retryAfterSeconds: number;
  message: string;
  /** What the message was made from, for one rendered in another language (AppError.params). */
  params: { variant: 'daily' | 'in_flight'; limit: number };
}

/**
 * Which jobs the daily quota counts: what the vendor was asked to do. A job counts once its
 * provider submission was recorded — cancelled or not, failed or not: that was paid for — and
 * while it may still be submitted (queued, running) or once it succeeded. It is given back when
 * it was cancelled before any submission, or failed through our own fault (an error of ours,
 * INTERNAL_*, or a lease that expired on its last attempt) without a charge. A job the vendor or
 * the content policy refused still counts. A job its start deadline ended (cancelled,
 * START_DEADLINE_EXCEEDED) was never sent, so it is given back like any cancel before submission —
 * and already from the moment the deadline passed, before the sweep ends it: it can no longer
 * start (domain/start-deadline.ts). In SQL over a generation_jobs row aliased `alias`.
 */
export function countsTowardDailyQuotaSql(alias: string): string {
  return `(${providerChargedSql(alias)}
           OR ${alias}.status IN ('running', 'succeeded')
           OR (${alias}.status = 'queued' AND NOT ${startDeadlinePassedSql(alias)})
           OR (${alias}.status = 'failed' AND NOT starts_with(${alias}.error_code, 'INTERNAL_') AND ${alias}.error_code <> 'LEASE_EXPIRED'))`;
}

/**
 * Which jobs take one of the user's MAX_IN_FLIGHT slots: queued or running — but not a queued job
 * past its start deadline, which will never start (the sweep ends it within a second or so). In
 * SQL over a generation_jobs row aliased `alias`; the status terms stay plain so that the count
 * reads generation_jobs_in_flight_user_idx.
 */
export function holdsInFlightSlotSql(alias: string): string {
  return `(${alias}.status IN ('queued', 'running') AND NOT ${startDeadlinePassedSql(alias)})`;
}

/**
 * countsTowardDailyQuotaSql in words, for users (GetQuota). It states that SQL, clause by clause:
 * change one, change the other.
 */
export const DAILY_QUOTA_RULE =
  'A generation created since 00:00 UTC counts while it is queued or running, once it succeeded, and once it was sent to ' +
  'the AI provider, even if it was then cancelled or failed. It also counts when it failed for any reason other than an ' +
  'error of ours (e.g. the provider or the content policy refused it). It is given back when it was cancelled before ' +
  'being sent to the provider, or failed through an error of ours (an internal error, or a worker lost on its last ' +
  'attempt) before being sent, or when its start deadline passed before it started.';

/** The in-flight count of the quota statement in words, for users (GetQuota). */
export const IN_FLIGHT_QUOTA_RULE =
  'Every generation queued or running now counts, whatever day it was created, except a queued one whose start deadline passed (it will never start).';

/** What is left of each limit, and how many creates the quota would accept now, one after the other. */
export interface QuotaStanding {
  dailyRemaining: number;
  inFlightRemaining: number;
  /** 0: the next create is refused (the create statement requires both counts under their limits). */
  remainingNow: number;
}

export function quotaStanding(usage: QuotaUsage, limits: Pick<QuotaLimits, 'dailyLimit' | 'maxInFlight'>): QuotaStanding {
  const dailyRemaining = Math.max(0, limits.dailyLimit - usage.today);
  const inFlightRemaining = Math.max(0, limits.maxInFlight - usage.inFlight);
  return { dailyRemaining, inFlightRemaining, remainingNow: Math.min(dailyRemaining, inFlightRemaining) };
}

/**
 * Explains a create the quota refused. The rule itself — under the daily limit and under the
 * in-flight limit — is applied where the usage is counted, by the create statement
 * (db/transitions/create-sql.ts); this names the limit that was reached.
 */
export function quotaRefusal(usage: QuotaUsage, limits: QuotaLimits, now: Date): QuotaRefusal {
  if (usage.today >= limits.dailyLimit) {
    return {
      limit: 'daily',
      retryAfterSeconds: secondsToNextUtcDay(now),
      message: `daily limit of ${limits.dailyLimit} generations reached; it resets at 00:00 UTC`,
      params: { variant: 'daily', limit: limits.dailyLimit },
    };
  }
  return {
    limit: 'in_flight',
    retryAfterSeconds: limits.inFlightRetryAfterSeconds,
    message: `${limits.maxInFlight} generations are already queued or running; wait for one to finish`,
    params: { variant: 'in_flight', limit: limits.maxInFlight },
  };
}

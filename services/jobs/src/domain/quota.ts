import { nextUtcDay, nextUtcMonth, secondsToNextUtcDay, secondsToNextUtcMonth } from '@atelier/errors';
import { providerChargedSql } from './provider-charges.js';
import { startDeadlinePassedSql } from './start-deadline.js';

/** The per-user limits of L3 (SPEC §4.3, §12). */
export interface QuotaLimits {
  dailyLimit: number;
  /** Per UTC calendar month; at least dailyLimit (config.ts checks it: a month always holds a day). */
  monthlyLimit: number;
  maxInFlight: number;
  /** Retry-After for the in-flight limit: a job usually finishes within seconds. */
  inFlightRetryAfterSeconds: number;
}

export interface QuotaUsage {
  /** Jobs created since the start of the current UTC day that count (countsTowardQuotaSql). */
  today: number;
  /**
   * Jobs created since the start of the current UTC month that count (countsTowardQuotaSql): today's,
   * plus the earlier days' counted up to the monthly limit (db/quota-usage-sql.ts) — exact below the
   * limit, which is all the rule needs.
   */
  thisMonth: number;
  /** queued + running jobs (holdsInFlightSlotSql). */
  inFlight: number;
}

/** The allowance a refusal names: the one that ran out. */
export type QuotaAllowance = 'daily' | 'monthly' | 'in_flight';

/** Which allowance refused a create, when the user may try again, and what to tell them. */
export interface QuotaRefusal {
  allowance: QuotaAllowance;
  /** The reason the refusal carries: the monthly allowance has its own (API 42902); daily and in-flight share 42900. */
  reason: 'GENERATION_QUOTA_EXCEEDED' | 'GENERATION_MONTHLY_QUOTA_EXCEEDED';
  retryAfterSeconds: number;
  /** When the allowance starts again from 0; null for in_flight, which frees when a job ends, at no set time. */
  resetsAt: Date | null;
  message: string;
  /**
   * What the message was made from, for one rendered in another language (AppError.params; the
   * message catalogs pick by `variant`), and the facts a client reads from the error body: which
   * `allowance` ran out and, for daily and monthly, when it `resetsAt` (ISO 8601).
   */
  params: { variant: QuotaAllowance; allowance: QuotaAllowance; limit: number; resetsAt?: string };
}

/**
 * Which jobs the quota counts — the daily and the monthly allowance alike, each over the jobs
 * created within its UTC window: what the vendor was asked to do. A job counts once its
 * provider submission was recorded — cancelled or not, failed or not: that was paid for — and
 * while it may still be submitted (queued, running) or once it succeeded. It is given back when
 * it was cancelled before any submission, or failed through our own fault (an error of ours,
 * INTERNAL_*, or a lease that expired on its last attempt) without a charge. A job the vendor or
 * the content policy refused still counts. A job its start deadline ended (cancelled,
 * START_DEADLINE_EXCEEDED) was never sent, so it is given back like any cancel before submission —
 * and already from the moment the deadline passed, before the sweep ends it: it can no longer
 * start (domain/start-deadline.ts). In SQL over a generation_jobs row aliased `alias`.
 */
export function countsTowardQuotaSql(alias: string): string {
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
 * countsTowardQuotaSql in words, for users (GetQuota): the rule of the daily and the monthly
 * allowance. It states that SQL, clause by clause: change one, change the other.
 */
export const QUOTA_COUNTING_RULE =
  'A generation counts towards the day and the month (UTC) it was created in — since 00:00 UTC today for the daily ' +
  'allowance, since 00:00 UTC on the 1st for the monthly one — while it is queued or running, once it succeeded, and ' +
  'once it was sent to the AI provider, even if it was then cancelled or failed. It also counts when it failed for any ' +
  'reason other than an error of ours (e.g. the provider or the content policy refused it). It is given back, in both, ' +
  'when it was cancelled before being sent to the provider, or failed through an error of ours (an internal error, or ' +
  'a worker lost on its last attempt) before being sent, or when its start deadline passed before it started.';

/** The in-flight count of the quota statement in words, for users (GetQuota). */
export const IN_FLIGHT_QUOTA_RULE =
  'Every generation queued or running now counts, whatever day it was created, except a queued one whose start deadline passed (it will never start).';

/** What is left of each limit, and how many creates the quota would accept now, one after the other. */
export interface QuotaStanding {
  dailyRemaining: number;
  monthlyRemaining: number;
  inFlightRemaining: number;
  /** 0: the next create is refused (the create statement requires every count under its limit). */
  remainingNow: number;
}

export function quotaStanding(usage: QuotaUsage, limits: Pick<QuotaLimits, 'dailyLimit' | 'monthlyLimit' | 'maxInFlight'>): QuotaStanding {
  const dailyRemaining = Math.max(0, limits.dailyLimit - usage.today);
  const monthlyRemaining = Math.max(0, limits.monthlyLimit - usage.thisMonth);
  const inFlightRemaining = Math.max(0, limits.maxInFlight - usage.inFlight);
  return {
    dailyRemaining,
    monthlyRemaining,
    inFlightRemaining,
    remainingNow: Math.min(dailyRemaining, monthlyRemaining, inFlightRemaining),
  };
}

/**
 * Explains a create the quota refused: when the user may try again, and what to tell them. The
 * rule itself — under the daily, the monthly and the in-flight limit — and which allowance a
 * refusal names are the create statement's (db/transitions/create-sql.ts), which answers it.
 */
export function quotaRefusal(allowance: QuotaAllowance, limits: QuotaLimits, now: Date): QuotaRefusal {
  if (allowance === 'monthly') {
    const resetsAt = nextUtcMonth(now);
    return {
      allowance: 'monthly',
      reason: 'GENERATION_MONTHLY_QUOTA_EXCEEDED',
      retryAfterSeconds: secondsToNextUtcMonth(now),
      resetsAt,
      message: `monthly limit of ${limits.monthlyLimit} generations reached; it resets on the 1st of next month at 00:00 UTC`,
      params: { variant: 'monthly', allowance: 'monthly', limit: limits.monthlyLimit, resetsAt: resetsAt.toISOString() },
    };
  }
  if (allowance === 'daily') {
    const resetsAt = nextUtcDay(now);
    return {
      allowance: 'daily',
      reason: 'GENERATION_QUOTA_EXCEEDED',
      retryAfterSeconds: secondsToNextUtcDay(now),
      resetsAt,
      message: `daily limit of ${limits.dailyLimit} generations reached; it resets at 00:00 UTC`,
      params: { variant: 'daily', allowance: 'daily', limit: limits.dailyLimit, resetsAt: resetsAt.toISOString() },
    };
  }
  return {
    allowance: 'in_flight',
    reason: 'GENERATION_QUOTA_EXCEEDED',
    retryAfterSeconds: limits.inFlightRetryAfterSeconds,
    resetsAt: null,
    message: `${limits.maxInFlight} generations are already queued or running; wait for one to finish`,
    params: { variant: 'in_flight', allowance: 'in_flight', limit: limits.maxInFlight },
  };
}

/** The start of the next UTC day after `now`: when a daily window (`date_trunc('day', now())` in UTC) ends. */
export function nextUtcDay(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
}

/** The start of the next UTC calendar month after `now`: when a monthly window (`date_trunc('month', now())` in UTC) ends. */
export function nextUtcMonth(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
}

/** Whole seconds from `now` to `then`, at least 1: a Retry-After. */
function secondsUntil(then: Date, now: Date): number {
  return Math.max(1, Math.ceil((then.getTime() - now.getTime()) / 1000));
}

/**
 * Whole seconds from `now` to the next UTC midnight (at least 1): the Retry-After of a refusal by a
 * daily limit, whose window is the UTC day (the SQL counts `created_at >= date_trunc('day', now())`
 * in UTC).
 */
export function secondsToNextUtcDay(now: Date): number {
  return secondsUntil(nextUtcDay(now), now);
}

/** Whole seconds from `now` to the first midnight of the next UTC month (at least 1): a monthly limit's Retry-After. */
export function secondsToNextUtcMonth(now: Date): number {
  return secondsUntil(nextUtcMonth(now), now);
}

/**
 * Whole seconds from `now` to the next UTC midnight (at least 1): the Retry-After of a refusal by a
 * daily limit, whose window is the UTC day (the SQL counts `created_at >= date_trunc('day', now())`
 * in UTC).
 */
export function secondsToNextUtcDay(now: Date): number {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return Math.max(1, Math.ceil((next - now.getTime()) / 1000));
}

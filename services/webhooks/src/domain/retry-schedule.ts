/**
 * When a failed delivery is tried again: after the n-th failed attempt (since creation or the
 * last replay), wait schedule[n-1]; past the last entry the delivery has failed. The default
 * spans about 17.5 hours over 7 attempts: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h — a receiver that is
 * down for a deploy, a night or a day of incident still gets every event.
 */
export const DEFAULT_RETRY_SCHEDULE_MS: readonly number[] = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000];

/** WEBHOOK_RETRY_SCHEDULE_MS: comma-separated delays in milliseconds, 1 to 20 of them. */
export function parseRetrySchedule(raw: string): number[] {
  const delays = raw.split(',').map((part) => part.trim());
  if (delays.length < 1 || delays.length > 20 || delays.some((part) => !/^\d{1,9}$/.test(part))) {
    throw new Error('must be 1 to 20 comma-separated delays in milliseconds, e.g. 5000,300000,1800000');
  }
  return delays.map(Number);
}

/** The delay before the next attempt after `failedAttempts` failures, or undefined: give up. */
export function retryDelayMs(schedule: readonly number[], failedAttempts: number): number | undefined {
  return schedule[failedAttempts - 1];
}

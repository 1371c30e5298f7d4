/** The per-user limits of L3 (SPEC §4.3). */
export interface QuotaLimits {
  dailyLimit: number;
  maxInFlight: number;
  /** Retry-After for the in-flight limit: a job usually finishes within seconds. */
  inFlightRetryAfterSeconds: number;
}

export interface QuotaUsage {
  /** Non-cancelled jobs created since the start of the current UTC day. */
  today: number;
  /** queued + running jobs. */
  inFlight: number;
}

export type QuotaDecision =
  { allowed: true } | { allowed: false; limit: 'daily' | 'in_flight'; retryAfterSeconds: number; message: string };

/** Whole seconds from `now` to the next UTC midnight (at least 1). */
export function secondsToNextUtcDay(now: Date): number {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return Math.max(1, Math.ceil((next - now.getTime()) / 1000));
}

export function decideQuota(usage: QuotaUsage, limits: QuotaLimits, now: Date): QuotaDecision {
  if (usage.today >= limits.dailyLimit) {
    return {
      allowed: false,
      limit: 'daily',
      retryAfterSeconds: secondsToNextUtcDay(now),
      message: `daily limit of ${limits.dailyLimit} generations reached; it resets at 00:00 UTC`,
    };
  }
  if (usage.inFlight >= limits.maxInFlight) {
    return {
      allowed: false,
      limit: 'in_flight',
      retryAfterSeconds: limits.inFlightRetryAfterSeconds,
      message: `${limits.maxInFlight} generations are already queued or running; wait for one to finish`,
    };
  }
  return { allowed: true };
}

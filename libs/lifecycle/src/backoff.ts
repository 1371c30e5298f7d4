import { setTimeout as sleep } from 'node:timers/promises';

export interface BackoffOptions {
  /** The first delay. */
  baseMs: number;
  /** No delay grows past this. */
  maxMs: number;
  /** ± this share of the delay, at random (default 0.2), so that callers failing together do not come back together. */
  jitter?: number;
}

/** The delay before retry `attempt` (1-based): baseMs · 2^(attempt-1), capped at maxMs, jittered. */
export function backoffDelayMs(attempt: number, options: BackoffOptions, random: () => number = Math.random): number {
  const exponential = Math.min(options.maxMs, options.baseMs * 2 ** Math.max(0, attempt - 1));
  const jitter = options.jitter ?? 0.2;
  return Math.round(exponential * (1 - jitter + 2 * jitter * random()));
}

export interface RetryOptions {
  /** Whether a failure may pass: anything else is thrown at once. */
  isTransient: (error: unknown) => boolean;
  backoff: BackoffOptions;
  /** Tries at most this many times (default: until the signal aborts). */
  maxAttempts?: number;
  /** Aborting stops the retries: the wait ends at once and the signal's reason is thrown. */
  signal?: AbortSignal;
  /** A failure's own lower bound on the wait (a Retry-After), when it has one. */
  minDelayMs?: (error: unknown) => number | undefined;
  /** Told of each transient failure before the wait (for a log line). */
  onRetry?: (error: unknown, attempt: number, delayMs: number) => void;
}

/**
 * Runs `work` until it succeeds, fails with an error that is not transient, runs out of
 * attempts or the signal aborts — waiting a jittered exponential backoff between tries. Only for
 * work that is safe to run again (idempotent, or rolled back as a whole when it failed).
 */
export async function retryWithBackoff<T>(work: (attempt: number) => Promise<T>, options: RetryOptions): Promise<T> {
  const maxAttempts = options.maxAttempts ?? Infinity;
  for (let attempt = 1; ; attempt += 1) {
    options.signal?.throwIfAborted();
    try {
      return await work(attempt);
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      if (attempt >= maxAttempts || !options.isTransient(error)) throw error;
      const delayMs = Math.max(backoffDelayMs(attempt, options.backoff), options.minDelayMs?.(error) ?? 0);
      options.onRetry?.(error, attempt, delayMs);
      await sleep(delayMs, undefined, { signal: options.signal }).catch(() => {
        throw options.signal!.reason;
      });
    }
  }
}

import { isTransientError } from '@atelier/errors';
import { retryWithBackoff } from '@atelier/lifecycle';
import type { Logger } from '@atelier/logging';
import { isTransientFailure, JobFailure } from './job-failure.js';

/** Between tries inside an attempt: from a quarter second up to five. */
const IN_ATTEMPT_BACKOFF = { baseMs: 250, maxMs: 5_000 };

/**
 * Runs one step of an attempt (a vendor call, reading the input, storing the output) again and
 * again while it fails transiently — a vendor 5xx, 429 or timeout, a peer service that is briefly
 * unreachable or restarting — until it works or the attempt's signal ends it (its time budget,
 * a cancel, a lost lease, a shutdown). A blip is a wait, not a failed attempt: the job fails only
 * when the attempt's time is spent. Every step retried here must be safe to repeat (a provider
 * submit carries the job's idempotency key; storing the output, the job id).
 */
export async function retryInAttempt<T>(step: string, work: () => Promise<T>, signal: AbortSignal, logger: Logger): Promise<T> {
  let lastTransient: unknown;
  try {
    return await retryWithBackoff(work, {
      isTransient: (error) => isTransientFailure(error) || isTransientError(error),
      backoff: IN_ATTEMPT_BACKOFF,
      signal,
      minDelayMs: (error) => (error instanceof JobFailure ? error.retryAfterMs : undefined),
      onRetry: (error, attempt, delayMs) => {
        lastTransient = error;
        logger.warn({ step, attempt, delayMs, err: error }, `${step} failed transiently; trying again within the attempt`);
      },
    });
  } catch (error) {
    // The attempt ended while this step kept failing: what kept failing is the attempt's story
    // (the vendor stayed unavailable), more than the clock that ran out on it.
    if (signal.aborted && lastTransient !== undefined) throw lastTransient;
    throw error;
  }
}

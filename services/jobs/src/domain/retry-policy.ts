import { backoffDelayMs } from '@atelier/lifecycle';
import type { JobDefinition } from '../definitions/index.js';

/** How a worker classified a failure (execution.proto ErrorClass, stored lower-case). */
export type ErrorClass = 'provider' | 'validation' | 'content_safety' | 'timeout' | 'credential' | 'cancelled' | 'internal';

export type FailureDecision = { outcome: 'requeue'; delayMs: number } | { outcome: 'fail' } | { outcome: 'cancel' };

export interface FailureFacts {
  errorClass: ErrorClass;
  /** The worker's opinion; final classes are never retried whatever it says. */
  retryable: boolean;
  /** The attempt that just failed (1-based). */
  attempt: number;
  maxAttempts: number;
  /** INTERNAL failures earlier attempts of this job already had. */
  earlierInternalFailures: number;
  /** VALIDATION failures (refused outputs) earlier attempts of this job already had. */
  earlierValidationFailures: number;
}

/**
 * Requeue or fail (SPEC §5): provider and validation errors retry with backoff while attempts
 * remain — validation errors at most the type's output validationRetries times; timeouts as the
 * definition says; content-safety and credential errors are final; internal errors retry once; a
 * cancellation ends the job cancelled.
 */
export function decideFailure(facts: FailureFacts, definition: JobDefinition, random: () => number = Math.random): FailureDecision {
  if (facts.errorClass === 'cancelled') return { outcome: 'cancel' };
  const attemptsLeft = facts.attempt < facts.maxAttempts;
  const classAllowsRetry =
    facts.errorClass === 'provider' ||
    (facts.errorClass === 'validation' && facts.earlierValidationFailures < (definition.output?.validationRetries ?? facts.maxAttempts)) ||
    (facts.errorClass === 'timeout' && definition.retryOnTimeout) ||
    (facts.errorClass === 'internal' && facts.earlierInternalFailures === 0);
  if (!facts.retryable || !classAllowsRetry || !attemptsLeft) return { outcome: 'fail' };
  // Jittered, so that jobs failing together (a provider outage) do not come back together.
  return { outcome: 'requeue', delayMs: backoffDelayMs(facts.attempt, definition.retryBackoff, random) };
}

export interface LeaseExpiryFacts {
  /** The attempt whose lease expired (1-based). */
  attempt: number;
  maxAttempts: number;
  /** Leases of this job the reaper took before this one. */
  earlierLeaseExpiries: number;
}

export type LeaseExpiryDecision = { requeue: true; delayMs: number } | { requeue: false };

/**
 * Requeue or fail a job whose lease expired (SPEC §4.6): its worker froze, crashed or lost its
 * network. The first time that is no fault of the job's, so it is queued again at once and another
 * worker takes it over within the lease (docs/fault-model.md). A job whose leases keep expiring may
 * be what kills or hangs its workers: from the second expiry on it waits the type's backoff,
 * counted in expiries. Out of attempts, it fails (LEASE_EXPIRED) either way.
 */
export function decideLeaseExpiry(
  facts: LeaseExpiryFacts,
  definition: JobDefinition | undefined,
  random: () => number = Math.random,
): LeaseExpiryDecision {
  if (facts.attempt >= facts.maxAttempts) return { requeue: false };
  if (facts.earlierLeaseExpiries === 0 || !definition) return { requeue: true, delayMs: 0 };
  return { requeue: true, delayMs: backoffDelayMs(facts.earlierLeaseExpiries, definition.retryBackoff, random) };
}

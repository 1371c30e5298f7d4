import type { jobsV1 } from '@atelier/contracts';
import { jobAttempts, type AttemptEvent } from './job-attempts.js';
import { statusMessage } from './job-state-machine.js';

/** The parts of a job_events row timings need. */
export type TransitionEvent = Pick<AttemptEvent, 'fromStatus' | 'toStatus' | 'attempt' | 'errorCode' | 'occurredAt'>;

/**
 * Vendor-style timings from a job's transition history: time queued before the first claim,
 * time spent running over all attempts, and each attempt's start, end, duration and outcome.
 */
export function jobTimings(createdAt: Date, completedAt: Date | null, events: readonly TransitionEvent[], now: Date): jobsV1.JobTimings {
  const attempts = jobAttempts(events, now);
  const end = completedAt ?? now;
  return {
    queuedMs: Math.max(0, (attempts[0]?.startedAt ?? end).getTime() - createdAt.getTime()),
    runningMs: attempts.reduce((sum, attempt) => sum + attempt.runMs, 0),
    totalMs: Math.max(0, end.getTime() - createdAt.getTime()),
    attempts: attempts.map((attempt) => ({
      attempt: attempt.attempt,
      startedAt: attempt.startedAt,
      endedAt: attempt.endedAt,
      durationMs: attempt.runMs,
      outcome: statusMessage(attempt.outcome),
      errorCode: attempt.errorCode,
    })),
  };
}

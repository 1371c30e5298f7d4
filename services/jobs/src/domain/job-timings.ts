import { jobsV1 } from '@atelier/contracts';
import { statusMessage } from './job-state-machine.js';

/** The parts of a job_events row timings need. */
export interface TransitionEvent {
  fromStatus: string | null;
  toStatus: string;
  attempt: number;
  errorCode: string | null;
  occurredAt: Date;
}

/**
 * Vendor-style timings from a job's transition history: time queued before the first claim,
 * time spent running over all attempts, and each attempt's start, end, duration and outcome.
 */
export function jobTimings(createdAt: Date, completedAt: Date | null, events: readonly TransitionEvent[], now: Date): jobsV1.JobTimings {
  const attempts: jobsV1.AttemptTiming[] = [];
  let firstClaim: Date | undefined;
  for (const event of events) {
    if (event.fromStatus === 'queued' && event.toStatus === 'running') {
      firstClaim ??= event.occurredAt;
      attempts.push({
        attempt: event.attempt,
        startedAt: event.occurredAt,
        endedAt: undefined,
        durationMs: 0,
        outcome: jobsV1.JobStatus.RUNNING,
        errorCode: undefined,
      });
    } else if (event.fromStatus === 'running') {
      const open = attempts.at(-1);
      if (open && open.endedAt === undefined) {
        open.endedAt = event.occurredAt;
        open.outcome = statusMessage(event.toStatus);
        open.errorCode = event.errorCode ?? undefined;
      }
    }
  }
  for (const attempt of attempts) {
    attempt.durationMs = Math.max(0, (attempt.endedAt ?? now).getTime() - attempt.startedAt!.getTime());
  }
  const end = completedAt ?? now;
  return {
    queuedMs: Math.max(0, (firstClaim ?? end).getTime() - createdAt.getTime()),
    runningMs: attempts.reduce((sum, attempt) => sum + attempt.durationMs, 0),
    totalMs: Math.max(0, end.getTime() - createdAt.getTime()),
    attempts,
  };
}

import { jobsExecutionV1 } from '@atelier/contracts';
import type { PromiseClient } from '@atelier/grpc';
import type { Logger } from '@atelier/logging';

const { HeartbeatDirective } = jobsExecutionV1;

export type StopCause = 'cancelled' | 'lease-lost';

/** What the jobs service's reason to stop (Heartbeat, ReportProgress) means for the attempt. */
export function stopCauseOf(reason: jobsExecutionV1.StopReason): StopCause {
  return reason === jobsExecutionV1.StopReason.CANCELLED ? 'cancelled' : 'lease-lost';
}

/**
 * Keeps one attempt's lease alive: a heartbeat every interval carrying the latest progress. When
 * the jobs service answers STOP — the user cancelled, or the lease passed to another worker —
 * onStop fires once and the keeper stops. A heartbeat that cannot reach the jobs service is
 * retried at the next tick: the lease outlives a few missed beats (interval = TTL / 3).
 */
export function startLeaseKeeper(options: {
  execution: PromiseClient<jobsExecutionV1.JobExecutionServiceClient>;
  jobId: string;
  workerId: string;
  intervalMs: number;
  progress: () => number;
  onStop: (cause: StopCause) => void;
  logger: Logger;
}): { stop(): void } {
  let stopped = false;
  let beating = false;
  const timer = setInterval(() => {
    if (stopped || beating) return;
    beating = true;
    options.execution
      .heartbeat(
        { jobId: options.jobId, workerId: options.workerId, progress: options.progress() },
        { deadlineMs: Math.max(1_000, options.intervalMs) },
      )
      .then(
        (answer) => {
          if (stopped || answer.directive !== HeartbeatDirective.STOP) return;
          stopped = true;
          clearInterval(timer);
          options.onStop(stopCauseOf(answer.stopReason));
        },
        (error: unknown) => options.logger.warn({ jobId: options.jobId, err: error }, 'heartbeat failed; retrying at the next tick'),
      )
      .finally(() => {
        beating = false;
      });
  }, options.intervalMs);
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}

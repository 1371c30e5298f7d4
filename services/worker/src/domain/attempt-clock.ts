import { jobsExecutionV1 } from '@atelier/contracts';
import type { Logger } from '@atelier/logging';

const { HeartbeatDirective } = jobsExecutionV1;

export type StopCause = 'cancelled' | 'lease-lost';

/** What the jobs service's reason to stop (Heartbeat, ReportProgress) means for the attempt. */
export function stopCauseOf(reason: jobsExecutionV1.StopReason): StopCause {
  return reason === jobsExecutionV1.StopReason.CANCELLED ? 'cancelled' : 'lease-lost';
}

/** One running attempt, as the clock keeps it. */
export interface ClockedAttempt {
  jobId: string;
  /** performance.now() after which the attempt has run out of time. */
  deadline: number;
  /** Heartbeat at least this often (the lease TTL / 3, from the claim). */
  heartbeatIntervalMs: number;
  progress(): number;
  /** The jobs service said STOP: the user cancelled, or the lease passed on. Called once. */
  onStop(cause: StopCause): void;
  /** The deadline passed. Called once. */
  onTimeout(): void;
}

interface Entry {
  attempt: ClockedAttempt;
  nextBeatAt: number;
  done: boolean;
}

/**
 * The one timer of a worker's running attempts: every tick it ends the attempts past their
 * deadline and sends the heartbeats that are due — all of them in one Heartbeats call — instead
 * of a timeout and a heartbeat interval per attempt (an attempt that ends within a tick, like a
 * canary, costs no timer at all). A heartbeat that cannot reach the jobs service is tried again
 * one interval later: the lease outlives a few missed beats (interval = TTL / 3).
 */
export class AttemptClock {
  private readonly attempts = new Map<ClockedAttempt, Entry>();
  private readonly timer: NodeJS.Timeout;
  private beating = false;

  constructor(
    private readonly options: {
      workerId: string;
      /** Sends one batch of heartbeats within deadlineMs; answers one response per beat, in order. */
      heartbeats: (beats: jobsExecutionV1.HeartbeatRequest[], deadlineMs: number) => Promise<jobsExecutionV1.HeartbeatResponse[]>;
      logger: Logger;
      /** How often deadlines and heartbeats are looked at (default 100 ms): their precision. */
      tickMs?: number;
    },
  ) {
    this.timer = setInterval(() => this.tick(), options.tickMs ?? 100);
    this.timer.unref();
  }

  /** Keeps the attempt's time and lease until the returned function is called (the attempt ended). */
  add(attempt: ClockedAttempt): () => void {
    const entry: Entry = { attempt, nextBeatAt: performance.now() + attempt.heartbeatIntervalMs, done: false };
    this.attempts.set(attempt, entry);
    return () => {
      entry.done = true;
      this.attempts.delete(attempt);
    };
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private tick(): void {
    const now = performance.now();
    const due: Entry[] = [];
    for (const entry of this.attempts.values()) {
      if (now >= entry.attempt.deadline) {
        this.end(entry);
        entry.attempt.onTimeout();
      } else if (now >= entry.nextBeatAt) due.push(entry);
    }
    if (due.length === 0 || this.beating) return;
    this.beating = true;
    for (const entry of due) entry.nextBeatAt = now + entry.attempt.heartbeatIntervalMs;
    const beats = due.map((entry) => ({ jobId: entry.attempt.jobId, workerId: this.options.workerId, progress: entry.attempt.progress() }));
    // A beat that has not come back within the shortest interval is overtaken by the next one.
    const deadlineMs = Math.max(1_000, Math.min(...due.map((entry) => entry.attempt.heartbeatIntervalMs)));
    this.options
      .heartbeats(beats, deadlineMs)
      .then(
        (answers) =>
          answers.forEach((answer, i) => {
            const entry = due[i]!;
            if (entry.done || answer.directive !== HeartbeatDirective.STOP) return;
            this.end(entry);
            entry.attempt.onStop(stopCauseOf(answer.stopReason));
          }),
        (error: unknown) => this.options.logger.warn({ err: error, jobs: due.length }, 'heartbeats failed; retrying at the next interval'),
      )
      .finally(() => {
        this.beating = false;
      });
  }

  private end(entry: Entry): void {
    entry.done = true;
    this.attempts.delete(entry.attempt);
  }
}

/** The parts of a job_events row an attempt is read from; the audit fields are absent from an archived history. */
export interface AttemptEvent {
  fromStatus: string | null;
  toStatus: string;
  attempt: number;
  errorCode: string | null;
  occurredAt: Date;
  actor?: string;
  errorClass?: string | null;
  detail?: string | null;
}

/** One attempt of a job: from the transition that made it due, through its claim, to the transition that ended it. */
export interface JobAttempt {
  attempt: number;
  queuedAt: Date;
  startedAt: Date;
  endedAt: Date | undefined;
  queuedWaitMs: number;
  /** To endedAt, or to `now` while it runs. */
  runMs: number;
  /** The stored status the attempt led to; `running` while it runs. */
  outcome: string;
  claimedBy: string | undefined;
  endedBy: string | undefined;
  errorCode: string | undefined;
  errorClass: string | undefined;
  errorDetail: string | undefined;
}

/**
 * A job's attempts from its transition history, in order. An attempt starts at a claim (queued →
 * running) and ends at the next transition out of running; it became due at the last transition
 * into queued before the claim (the creation, or the retry that put it back, backoff included).
 * The state machine allows no other way into or out of running, so every attempt is found.
 */
export function jobAttempts(events: readonly AttemptEvent[], now: Date): JobAttempt[] {
  const attempts: JobAttempt[] = [];
  let dueSince: Date | undefined;
  for (const event of events) {
    if (event.toStatus === 'queued') {
      dueSince = event.occurredAt;
    } else if (event.fromStatus === 'queued' && event.toStatus === 'running') {
      const queuedAt = dueSince ?? event.occurredAt;
      attempts.push({
        attempt: event.attempt,
        queuedAt,
        startedAt: event.occurredAt,
        endedAt: undefined,
        queuedWaitMs: Math.max(0, event.occurredAt.getTime() - queuedAt.getTime()),
        runMs: 0,
        outcome: 'running',
        claimedBy: event.actor,
        endedBy: undefined,
        errorCode: undefined,
        errorClass: undefined,
        errorDetail: undefined,
      });
    }
    if (event.fromStatus === 'running') {
      const open = attempts.at(-1);
      if (open && open.endedAt === undefined) {
        open.endedAt = event.occurredAt;
        open.outcome = event.toStatus;
        open.endedBy = event.actor;
        open.errorCode = event.errorCode ?? undefined;
        open.errorClass = event.errorClass ?? undefined;
        open.errorDetail = event.detail ?? undefined;
      }
    }
  }
  for (const attempt of attempts) attempt.runMs = Math.max(0, (attempt.endedAt ?? now).getTime() - attempt.startedAt.getTime());
  return attempts;
}

import { isTransientError } from '@atelier/errors';

/**
 * What a failed publish means. `unanswered`: the broker is unreachable, restarting or slow (a
 * transient error by @atelier/errors' classification: the connection lost, closed or draining, the
 * publish not acknowledged in time) — waited out, no attempt spent. `missing-stream`: nobody
 * answered on the subject (nats.js calls it "jetstream is not enabled"): a stream deleted, a broker
 * that lost its state, or JetStream not up yet after a restart — the streams are declared again
 * before anything is counted. `rejected`: the broker answered no (the message is too large, the
 * stream refuses it) — an attempt spent, dead after the relay's maximum of attempts.
 */
export type PublishFailure = 'unanswered' | 'missing-stream' | 'rejected';

export function publishFailureOf(error: unknown): PublishFailure {
  if ((error as Error | undefined)?.name === 'JetStreamNotEnabled') return 'missing-stream';
  return isTransientError(error) ? 'unanswered' : 'rejected';
}

/** What an operator reads in a row's last_error. */
export function publishErrorText(error: unknown, subject: string): string {
  if (publishFailureOf(error) === 'missing-stream') {
    return `no JetStream stream takes subject ${subject} (no responders): the stream is missing, or JetStream is off`;
  }
  return String((error as Error | undefined)?.message ?? error).slice(0, 1_000);
}

/** After the streams were declared, a publish no stream takes is the subject's fault for this long. */
export const STREAMS_TRUSTED_FOR_MS = 30_000;

/** While the broker does not answer: from a quarter second, growing to five. */
export const OUTAGE_BACKOFF = { baseMs: 250, maxMs: 5_000 };

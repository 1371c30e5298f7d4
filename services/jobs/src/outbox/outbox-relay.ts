import type { SqlPool } from '@atelier/db';
import type { Logger } from '@atelier/logging';
import { headers, type JetStreamClient } from '@atelier/nats';
import { inSpan, SpanKind } from '@atelier/telemetry';
import {
  claimDueOutboxRows,
  deletePublishedOutboxRows,
  markOutboxFailed,
  markOutboxPublished,
  nextOutboxDueAt,
  releaseStaleOutboxLocks,
  type OutboxRow,
} from '../db/outbox-sql.js';

/**
 * What an operator reads in a dead row's last_error. nats.js reports a publish nobody answers
 * (no stream takes the subject) as "jetstream is not enabled", which sends people the wrong way.
 */
const isMissingStream = (error: unknown) => (error as Error | undefined)?.name === 'JetStreamNotEnabled';

export function publishErrorText(error: unknown, subject: string): string {
  if (isMissingStream(error)) {
    return `no JetStream stream takes subject ${subject} (no responders): the stream is missing, or JetStream is off`;
  }
  return String((error as Error | undefined)?.message ?? error).slice(0, 1_000);
}

export interface OutboxRelayOptions {
  pool: SqlPool;
  js: JetStreamClient;
  logger: Logger;
  /** Unique per relay (process): the lock owner of claimed rows. */
  relayId: string;
  batchSize?: number;
  /** Longest sleep without a wake-up (the poll fallback). */
  pollIntervalMs?: number;
  /** A claimed row not settled within this is given to another relay. */
  lockTimeoutMs?: number;
  /** Publish attempts before a row is dead. */
  maxAttempts?: number;
  retryBaseMs?: number;
  retryMaxMs?: number;
  publishTimeoutMs?: number;
  /** Published rows are deleted after this. */
  publishedRetentionMs?: number;
  /** Told, per published row, the seconds from its falling due to JetStream's acknowledgement. */
  publishLag?: { observe(seconds: number): void };
  /**
   * Declares the streams again; called (at most every few seconds) when a publish finds no stream
   * for its subject — deleted by hand, or a NATS server that lost its state. The failed rows are
   * retried with their usual backoff.
   */
  restoreStreams?: () => Promise<void>;
}

const RESTORE_MIN_INTERVAL_MS = 5_000;

/**
 * Moves outbox rows to JetStream: claim due rows (SKIP LOCKED), publish each with
 * Nats-Msg-Id = dedupe key, mark the acknowledged ones published and back the others off.
 * Wakes when told (a local commit, a NOTIFY from another replica), when the next delayed row
 * falls due, and at least every poll interval. Any number of replicas may run one.
 */
export class OutboxRelay {
  private readonly options: Required<Omit<OutboxRelayOptions, 'publishLag' | 'restoreStreams'>> &
    Pick<OutboxRelayOptions, 'publishLag' | 'restoreStreams'>;
  private lastRestoreAt = 0;
  private wakeUp: (() => void) | undefined;
  private woken = false;
  private stopped = true;
  private loop: Promise<void> | undefined;
  private housekeeping: NodeJS.Timeout | undefined;

  constructor(options: OutboxRelayOptions) {
    this.options = {
      batchSize: 200,
      pollIntervalMs: 1_000,
      lockTimeoutMs: 30_000,
      maxAttempts: 10,
      retryBaseMs: 500,
      retryMaxMs: 60_000,
      publishTimeoutMs: 5_000,
      publishedRetentionMs: 24 * 3600_000,
      ...options,
    };
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.loop = this.run();
    this.housekeeping = setInterval(() => void this.keepHouse(), Math.max(1_000, this.options.lockTimeoutMs / 2));
    this.housekeeping.unref();
  }

  /** Asks for a cycle now. Cheap and coalescing: call it after every commit that wrote the outbox. */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.housekeeping);
    this.wakeUp?.();
    await this.loop;
  }

  /** One claim → publish → settle cycle; answers how many rows it claimed. */
  async runOnce(): Promise<number> {
    const rows = await claimDueOutboxRows(this.options.pool, this.options.relayId, this.options.batchSize);
    if (rows.length === 0) return 0;
    const results = await Promise.allSettled(rows.map((row) => this.publish(row)));
    const publishedAt = Date.now();
    const published: string[] = [];
    const failures: { id: string; error: string; retryInMs: number }[] = [];
    results.forEach((result, i) => {
      const row = rows[i]!;
      if (result.status === 'fulfilled') {
        published.push(row.id);
        this.options.publishLag?.observe(Math.max(0, publishedAt - row.available_at.getTime()) / 1000);
      } else
        failures.push({
          id: row.id,
          error: publishErrorText(result.reason, row.subject),
          retryInMs: this.retryDelay(row.attempt_count),
        });
    });
    await markOutboxPublished(this.options.pool, this.options.relayId, published);
    if (failures.length > 0) {
      if (results.some((result) => result.status === 'rejected' && isMissingStream(result.reason))) await this.restoreStreams();
      await markOutboxFailed(this.options.pool, this.options.relayId, failures, this.options.maxAttempts);
      this.options.logger.warn({ failed: failures.length, firstError: failures[0]!.error }, 'outbox publish failed; backing off');
    }
    return rows.length;
  }

  /** Releases expired locks and prunes old published rows. */
  async keepHouse(): Promise<void> {
    try {
      const released = await releaseStaleOutboxLocks(this.options.pool, this.options.lockTimeoutMs, this.options.maxAttempts);
      if (released > 0) {
        this.options.logger.warn({ released }, 'released outbox rows whose relay lock expired');
        this.wake();
      }
      await deletePublishedOutboxRows(this.options.pool, this.options.publishedRetentionMs, 1_000);
    } catch (error) {
      this.options.logger.warn({ err: error }, 'outbox housekeeping failed');
    }
  }

  /**
   * A row that carries its job's trace is published in a producer span of that trace, whose
   * context travels in the message headers to the consumer. Rows without one (tracing off when
   * the job was created) are published bare: no span, no headers.
   */
  private publish(row: OutboxRow) {
    const send = (carrier?: Record<string, string>) => {
      let traceHeaders;
      if (carrier?.traceparent) {
        traceHeaders = headers();
        for (const [name, value] of Object.entries(carrier)) traceHeaders.set(name, value);
      }
      return this.options.js.publish(row.subject, JSON.stringify(row.payload), {
        msgID: row.dedupe_key,
        timeout: this.options.publishTimeoutMs,
        headers: traceHeaders,
      });
    };
    if (!row.trace_context) return send();
    return inSpan(
      `${row.event_type} publish`,
      {
        kind: SpanKind.PRODUCER,
        parent: row.trace_context,
        attributes: {
          'messaging.system': 'nats',
          'messaging.operation.type': 'publish',
          'messaging.destination.name': row.subject,
          'messaging.message.id': row.dedupe_key,
          'atelier.job.id': row.aggregate_id,
        },
      },
      send,
    );
  }

  private async restoreStreams(): Promise<void> {
    const { restoreStreams, logger } = this.options;
    if (!restoreStreams || Date.now() - this.lastRestoreAt < RESTORE_MIN_INTERVAL_MS) return;
    this.lastRestoreAt = Date.now();
    logger.warn('a publish found no stream for its subject: declaring the JetStream streams again');
    // A pause first: NATS removes a deleted file-backed stream from disk in the background, and one
    // declared again under its name at once can come up unable to serve its first messages.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await restoreStreams().catch((error: unknown) => logger.error({ err: error }, 'declaring the JetStream streams failed'));
  }

  private retryDelay(attempt: number): number {
    const exponential = Math.min(this.options.retryMaxMs, this.options.retryBaseMs * 2 ** Math.max(0, attempt - 1));
    return Math.round(exponential * (0.8 + 0.4 * Math.random()));
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      this.woken = false;
      let claimed = 0;
      try {
        claimed = await this.runOnce();
      } catch (error) {
        this.options.logger.warn({ err: error }, 'outbox relay cycle failed');
      }
      if (this.stopped) break;
      if (claimed === this.options.batchSize || this.woken) continue;
      await this.sleep(await this.untilNextDue());
    }
  }

  private async untilNextDue(): Promise<number> {
    try {
      const due = await nextOutboxDueAt(this.options.pool);
      if (!due) return this.options.pollIntervalMs;
      return Math.min(this.options.pollIntervalMs, Math.max(0, due.getTime() - Date.now()));
    } catch {
      return this.options.pollIntervalMs;
    }
  }

  private sleep(ms: number): Promise<void> {
    if (this.woken || ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakeUp = () => {
        this.wakeUp = undefined;
        done();
      };
    });
  }
}

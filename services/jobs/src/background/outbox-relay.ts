import { setTimeout as sleep } from 'node:timers/promises';
import type { SqlPool } from '@atelier/db';
import type { Logger } from '@atelier/logging';
import { headers, type JetStreamClient } from '@atelier/nats';
import { inSpan, SpanKind } from '@atelier/telemetry';
import { backoffDelayMs, startPeriodicTask, type PeriodicTask } from '@atelier/lifecycle';
import { OUTAGE_BACKOFF, STREAMS_TRUSTED_FOR_MS, publishErrorText, publishFailureOf, type PublishFailure } from '@atelier/outbox';
import {
  claimDueOutboxRows,
  markOutboxPublished,
  markOutboxRejected,
  nextOutboxDueAt,
  releaseStaleOutboxLocks,
  releaseUnpublishedOutboxRows,
} from '../db/outbox-sql.js';
import type { ClaimedOutboxRow, OutboxRow } from '../db/outbox-row.js';

/** What publishing a row and settling it needs, whether the relay claimed it or a transition did. */
type PublishableRow = Pick<
  OutboxRow,
  'id' | 'aggregate_id' | 'event_type' | 'subject' | 'dedupe_key' | 'payload' | 'trace_context' | 'available_at' | 'attempt_count'
>;

export interface OutboxRelayOptions {
  pool: SqlPool;
  /** JetStream while the broker is connected; undefined while it is not (the relay waits). */
  broker: () => JetStreamClient | undefined;
  logger: Logger;
  /** Unique per relay (process): the lock owner of claimed rows. */
  relayId: string;
  batchSize?: number;
  /** Longest sleep without a wake-up (the poll fallback). */
  pollIntervalMs?: number;
  /** A claimed row not settled within this is given to another relay. */
  lockTimeoutMs?: number;
  /** Publishes the broker refuses before a row is dead (an unanswered publish counts for nothing). */
  maxAttempts?: number;
  retryBaseMs?: number;
  retryMaxMs?: number;
  publishTimeoutMs?: number;
  /** Told, per published row, the seconds from its falling due to JetStream's acknowledgement. */
  publishLag?: { observe(seconds: number): void };
  /**
   * Declares the streams again (throws when it cannot): called when a publish finds no stream for
   * its subject — deleted by hand, a NATS server that lost its state, JetStream not up yet.
   */
  restoreStreams?: () => Promise<void>;
  /**
   * Rows handed over by transitions (publishClaimed) and not yet settled, at most: beyond, new
   * rows are written pending and the claim loop takes them in batches.
   */
  maxHandedOver?: number;
}

/**
 * Moves outbox rows to JetStream: claim due rows (SKIP LOCKED), publish each with
 * Nats-Msg-Id = dedupe key, mark the acknowledged ones published and back the refused ones off.
 * While the broker is away nothing is claimed and nothing counts against a row: the relay
 * pauses (backoff capped at 5 s) and carries on when it answers again. Wakes when told (a local
 * commit, a NOTIFY from another replica), when the next delayed row falls due, and at least every
 * poll interval. Any number of replicas may run one.
 */
export class OutboxRelay {
  private readonly options: Required<Omit<OutboxRelayOptions, 'publishLag' | 'restoreStreams'>> &
    Pick<OutboxRelayOptions, 'publishLag' | 'restoreStreams'>;
  /** When the streams were last declared successfully (a publish that finds none after that is refused). */
  private streamsDeclaredAt = 0;
  /** Cycles in a row in which the broker did not answer: how long to pause before the next. */
  private unansweredCycles = 0;
  private wakeUp: (() => void) | undefined;
  private woken = false;
  private stopped = true;
  private loop: Promise<void> | undefined;
  private housekeeping: PeriodicTask | undefined;
  private stopping = new AbortController();
  /** Rows transitions wrote claimed for this relay, waiting for the next hand-over flush. */
  private handedOver: PublishableRow[] = [];
  /** Of those, and of the flushes running, how many are not settled yet. */
  private handedOverUnsettled = 0;
  private readonly flushes = new Set<Promise<void>>();
  private flushScheduled = false;

  constructor(options: OutboxRelayOptions) {
    this.options = {
      batchSize: 200,
      pollIntervalMs: 1_000,
      lockTimeoutMs: 30_000,
      maxAttempts: 10,
      retryBaseMs: 500,
      retryMaxMs: 60_000,
      publishTimeoutMs: 5_000,
      maxHandedOver: 5_000,
      ...options,
    };
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.stopping = new AbortController();
    this.loop = this.run();
    this.housekeeping = startPeriodicTask({
      name: 'outbox housekeeping',
      intervalMs: Math.max(1_000, this.options.lockTimeoutMs / 2),
      logger: this.options.logger,
      run: () => this.keepHouse(),
    });
  }

  /** Asks for a cycle now. Cheap and coalescing: call it after every commit that wrote the outbox. */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping.abort();
    this.wakeUp?.();
    await Promise.all([this.loop, this.housekeeping?.stop()]);
    // Rows handed over in this very turn are handed back now (the relay is stopped), not left to a timer.
    while (this.handedOver.length > 0) this.flushHandedOver();
    await Promise.all(this.flushes);
  }

  /**
   * The name a transition writes its due outbox rows claimed under, for this relay to publish
   * right after the commit (publishClaimed); null — write them pending — while the relay is
   * stopped, the broker away or too many handed-over rows are still unsettled.
   */
  claimLane(): string | null {
    if (this.stopped || this.unansweredCycles > 0 || this.handedOverUnsettled >= this.options.maxHandedOver) return null;
    return this.options.broker() ? this.options.relayId : null;
  }

  /**
   * Publishes rows a committed transition wrote claimed for this relay (claimLane): the rows of
   * every commit in this turn of the event loop go together, settled as a claimed batch is —
   * published, refused (backed off) or handed back to pending when the broker does not answer.
   */
  publishClaimed(rows: readonly ClaimedOutboxRow[]): void {
    if (rows.length === 0) return;
    for (const row of rows) this.handedOver.push({ ...row, available_at: new Date(row.available_at), attempt_count: 0 });
    this.handedOverUnsettled += rows.length;
    this.scheduleFlush();
  }

  /**
   * At most two flushes run at once: under load the rows handed over meanwhile leave together in
   * the next one (one publish round and one UPDATE for many commits), and a lone commit's rows
   * leave at once (a microtask: after the announcements of its whole batch).
   */
  private scheduleFlush(): void {
    if (this.flushScheduled || this.flushes.size >= 2 || this.handedOver.length === 0) return;
    this.flushScheduled = true;
    queueMicrotask(() => {
      this.flushScheduled = false;
      if (this.handedOver.length > 0) this.flushHandedOver();
    });
  }

  private flushHandedOver(): void {
    const rows = this.handedOver.splice(0, this.options.batchSize * 5);
    const flush = (async () => {
      const js = this.options.broker();
      try {
        if (!js || this.stopped) {
          await releaseUnpublishedOutboxRows(
            this.options.pool,
            this.options.relayId,
            rows.map((row) => row.id),
            this.stopped ? 'handed back: the relay stopped' : 'not published yet: NATS is not connected',
          );
          this.wake();
          return;
        }
        if ((await this.settle(js, rows)) === 'unanswered') this.wake();
      } catch (error) {
        // Left claimed: once the lock expires any relay publishes them (releaseStaleOutboxLocks).
        this.options.logger.warn({ err: error, rows: rows.length }, 'settling handed-over outbox rows failed; their locks will expire');
      } finally {
        this.handedOverUnsettled -= rows.length;
      }
    })();
    this.flushes.add(flush);
    void flush.finally(() => {
      this.flushes.delete(flush);
      this.scheduleFlush();
    });
  }

  /**
   * One claim → publish → settle cycle; answers how many rows it claimed, or 'unanswered' when the
   * broker is away (nothing claimed, or the claimed rows handed back untouched).
   */
  async runOnce(): Promise<number | 'unanswered'> {
    const js = this.options.broker();
    if (!js) return 'unanswered';
    const rows = await claimDueOutboxRows(this.options.pool, this.options.relayId, this.options.batchSize);
    if (rows.length === 0) return 0;
    return this.settle(js, rows);
  }

  /**
   * Publishes rows this relay holds and settles each: published, refused (backed off, dead after
   * the attempts), or handed back untouched when the broker did not answer. Answers how many rows
   * it settled, or 'unanswered'.
   */
  private async settle(js: JetStreamClient, rows: readonly PublishableRow[]): Promise<number | 'unanswered'> {
    const results = await Promise.allSettled(rows.map((row) => this.publish(js, row)));
    const publishedAt = Date.now();
    const published: string[] = [];
    const failed: { row: PublishableRow; error: unknown; kind: PublishFailure }[] = [];
    results.forEach((result, i) => {
      const row = rows[i]!;
      if (result.status === 'fulfilled') {
        published.push(row.id);
        this.options.publishLag?.observe(Math.max(0, publishedAt - row.available_at.getTime()) / 1000);
      } else failed.push({ row, error: result.reason, kind: publishFailureOf(result.reason) });
    });
    await markOutboxPublished(this.options.pool, this.options.relayId, published);
    if (failed.length === 0) return rows.length;

    // No stream took a subject: declare the streams (again). If that cannot be done the broker is
    // not ready; if it was done just now, the next try tells. Only a publish that finds no stream
    // although the streams were declared recently is the subject's fault.
    let missingIsRefusal = Date.now() - this.streamsDeclaredAt < STREAMS_TRUSTED_FOR_MS;
    let brokerReady = true;
    if (!missingIsRefusal && failed.some((f) => f.kind === 'missing-stream')) {
      brokerReady = await this.restoreStreams();
      missingIsRefusal = false;
    }
    const rejected = failed.filter((f) => f.kind === 'rejected' || (f.kind === 'missing-stream' && missingIsRefusal));
    const handedBack = failed.filter((f) => !rejected.includes(f));
    await markOutboxRejected(
      this.options.pool,
      this.options.relayId,
      rejected.map((f) => ({
        id: f.row.id,
        error: publishErrorText(f.error, f.row.subject),
        retryInMs: this.retryDelay(f.row.attempt_count + 1),
      })),
      this.options.maxAttempts,
    );
    if (handedBack.length > 0) {
      const first = handedBack[0]!;
      await releaseUnpublishedOutboxRows(
        this.options.pool,
        this.options.relayId,
        handedBack.map((f) => f.row.id),
        `not published yet: ${publishErrorText(first.error, first.row.subject)}`,
      );
    }
    if (rejected.length > 0) {
      this.options.logger.warn(
        { refused: rejected.length, firstError: publishErrorText(rejected[0]!.error, rejected[0]!.row.subject) },
        'outbox publish refused; backing off',
      );
    }
    const unanswered = handedBack.some((f) => f.kind === 'unanswered') || !brokerReady;
    return unanswered ? 'unanswered' : rows.length;
  }

  /** Releases expired locks. (Published rows are pruned by background/retention-pruner.ts.) */
  private async keepHouse(): Promise<void> {
    const released = await releaseStaleOutboxLocks(this.options.pool, this.options.lockTimeoutMs);
    if (released > 0) {
      this.options.logger.warn({ released }, 'released outbox rows whose relay lock expired');
      this.wake();
    }
  }

  /**
   * A row that carries its job's trace is published in a producer span of that trace, whose
   * context travels in the message headers to the consumer. Rows without one (tracing off when
   * the job was created) are published bare: no span, no headers.
   */
  private publish(js: JetStreamClient, row: PublishableRow) {
    const send = (carrier?: Record<string, string>) => {
      let traceHeaders;
      if (carrier?.traceparent) {
        traceHeaders = headers();
        for (const [name, value] of Object.entries(carrier)) traceHeaders.set(name, value);
      }
      return js.publish(row.subject, JSON.stringify(row.payload), {
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

  /** Declares the streams again; answers whether that worked (if not, the broker is not ready). */
  private async restoreStreams(): Promise<boolean> {
    const { restoreStreams, logger } = this.options;
    if (!restoreStreams) return true;
    logger.warn('a publish found no stream for its subject: declaring the JetStream streams again');
    try {
      await restoreStreams();
      this.streamsDeclaredAt = Date.now();
      return true;
    } catch (error) {
      logger.warn({ err: error }, 'declaring the JetStream streams failed: the broker is not ready');
      return false;
    }
  }

  private retryDelay(attempt: number): number {
    return backoffDelayMs(attempt, { baseMs: this.options.retryBaseMs, maxMs: this.options.retryMaxMs });
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      this.woken = false;
      let claimed: number | 'unanswered' = 0;
      try {
        claimed = await this.runOnce();
      } catch (error) {
        this.options.logger.warn({ err: error }, 'outbox relay cycle failed');
      }
      if (this.stopped) break;
      if (claimed === 'unanswered') {
        // The broker is away: wait (not woken by commits, which would only retry at once).
        this.unansweredCycles += 1;
        if (this.unansweredCycles === 1) this.options.logger.warn({}, 'NATS does not answer: the outbox waits for it');
        await this.pause(backoffDelayMs(this.unansweredCycles, OUTAGE_BACKOFF));
        continue;
      }
      if (this.unansweredCycles > 0)
        this.options.logger.info({ cycles: this.unansweredCycles }, 'NATS answers again: the outbox carries on');
      this.unansweredCycles = 0;
      if (claimed === this.options.batchSize || this.woken) continue;
      await this.sleep(await this.untilNextDue());
    }
  }

  /** Sleeps through wake-ups; only stop() ends it early. */
  private pause(ms: number): Promise<void> {
    return sleep(ms, undefined, { signal: this.stopping.signal }).catch(() => {});
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
    // stop() may come while the next due time is being read, before there is a wake-up to call.
    if (this.stopped || this.woken || ms <= 0) return Promise.resolve();
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

import { setTimeout as sleep } from 'node:timers/promises';
import { NotificationListener, type SqlPool } from '@atelier/db';
import { backoffDelayMs, startPeriodicTask, type PeriodicTask } from '@atelier/lifecycle';
import type { JetStreamClient } from '@atelier/nats';
import {
  claimDueOutboxRows,
  markOutboxPublished,
  markOutboxRejected,
  nextOutboxDueAt,
  prunePublishedOutboxRows,
  releaseStaleOutboxLocks,
  releaseUnpublishedOutboxRows,
  type OutboxRow,
} from './outbox-sql.js';
import { outboxChannel } from './outbox-table.js';
import { OUTAGE_BACKOFF, STREAMS_TRUSTED_FOR_MS, publishErrorText, publishFailureOf } from './publish-failure.js';

interface RelayLogger {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/**
 * Cycles without an answer that go unlogged (about 1.75 s): the relay starts with its service,
 * usually a moment before the NATS link first connects.
 */
const QUIET_UNANSWERED_CYCLES = 3;

export interface OutboxRelayOptions {
  pool: SqlPool;
  /** Where its LISTEN connection goes (the pool's database). */
  databaseUrl: string;
  /** The schema whose `outbox` table (outbox-table.ts) this relay publishes. */
  schema: string;
  /** JetStream while the broker is connected; undefined while it is not (the relay waits). */
  broker: () => JetStreamClient | undefined;
  /**
   * Declares the streams the rows go to (throws when it cannot): before the first publish, and
   * again when a publish finds no stream for its subject (deleted by hand, a broker that lost its state).
   */
  declareStreams: () => Promise<void>;
  logger: RelayLogger;
  /** Unique per relay (process): the lock owner of claimed rows. */
  relayId: string;
  batchSize?: number;
  /** Longest sleep without a wake-up (the poll fallback when a NOTIFY is missed). */
  pollIntervalMs?: number;
  /** A claimed row not settled within this is given to another relay; the streams' duplicate window outlasts it. */
  lockTimeoutMs?: number;
  /** Publishes the broker refuses before a row is dead (an unanswered publish counts for nothing). */
  maxAttempts?: number;
  retryBaseMs?: number;
  retryMaxMs?: number;
  publishTimeoutMs?: number;
  /** Published rows are deleted after this (a day by default: long past any redelivery). */
  retainPublishedMs?: number;
}

/**
 * Moves `<schema>.outbox` rows to JetStream: claims due rows (SKIP LOCKED, so any number of
 * replicas may run one), publishes each as JSON with Nats-Msg-Id = its dedupe key, marks the
 * acknowledged ones published and backs the refused ones off (dead after maxAttempts refusals).
 * While the broker is away nothing is claimed and nothing counts against a row: the relay pauses
 * (backoff capped at 5 s) and carries on when it answers again. Wakes on the NOTIFY a writer's
 * commit sends (insertOutboxEvents), when a delayed row falls due, and at least every poll
 * interval; releases the locks of relays that died holding rows and prunes published rows.
 */
export class OutboxRelay {
  private readonly options: Required<OutboxRelayOptions>;
  private readonly listener: NotificationListener;
  /** When the streams were last declared (0: not yet, or a publish found one missing since). */
  private streamsDeclaredAt = 0;
  private unansweredCycles = 0;
  private wakeUp: (() => void) | undefined;
  private woken = false;
  private stopped = true;
  private loop: Promise<void> | undefined;
  private housekeeping: PeriodicTask | undefined;
  private stopping = new AbortController();

  constructor(options: OutboxRelayOptions) {
    this.options = {
      batchSize: 100,
      pollIntervalMs: 2_000,
      lockTimeoutMs: 30_000,
      maxAttempts: 10,
      retryBaseMs: 500,
      retryMaxMs: 60_000,
      publishTimeoutMs: 5_000,
      retainPublishedMs: 24 * 3_600_000,
      // An option given as undefined keeps its default.
      ...(Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as OutboxRelayOptions),
    };
    this.listener = new NotificationListener({
      databaseUrl: options.databaseUrl,
      logger: options.logger,
      applicationName: `${options.schema}-outbox-listener`,
    });
    this.listener.on(outboxChannel(options.schema), () => this.wake());
  }

  /** Starts listening and publishing; resolves once the LISTEN connection was tried (the poll covers its absence). */
  async start(): Promise<void> {
    if (!this.stopped) return;
    this.stopped = false;
    this.stopping = new AbortController();
    await this.listener.start();
    this.loop = this.run();
    this.housekeeping = startPeriodicTask({
      name: `${this.options.schema} outbox housekeeping`,
      intervalMs: Math.max(1_000, this.options.lockTimeoutMs / 2),
      logger: this.options.logger,
      run: () => this.keepHouse(),
    });
  }

  /** Asks for a cycle now (coalescing). */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /** Ends the loop after the cycle in flight (whose rows are settled: none is left claimed). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping.abort();
    this.wakeUp?.();
    await Promise.all([this.loop, this.housekeeping?.stop()]);
    await this.listener.stop();
  }

  /**
   * One claim → publish → settle cycle: answers how many rows it claimed, or 'unanswered' when the
   * broker is away (nothing claimed, or the claimed rows handed back untouched).
   */
  async runOnce(): Promise<number | 'unanswered'> {
    const js = this.options.broker();
    if (!js) return 'unanswered';
    if (this.streamsDeclaredAt === 0 && !(await this.declareStreams())) return 'unanswered';
    const { pool, schema, relayId } = this.options;
    const rows = await claimDueOutboxRows(pool, schema, relayId, this.options.batchSize);
    if (rows.length === 0) return 0;

    const results = await Promise.allSettled(rows.map((row) => this.publish(js, row)));
    const failed = results.flatMap((result, i) =>
      result.status === 'rejected' ? [{ row: rows[i]!, error: result.reason as unknown, kind: publishFailureOf(result.reason) }] : [],
    );
    await markOutboxPublished(
      pool,
      schema,
      relayId,
      rows.filter((_, i) => results[i]!.status === 'fulfilled').map((row) => row.id),
    );
    if (failed.length === 0) return rows.length;

    // No stream took a subject: declare the streams again, and count the publish as the subject's
    // fault only if they had been declared just before it.
    const missingIsRefusal = Date.now() - this.streamsDeclaredAt < STREAMS_TRUSTED_FOR_MS;
    const brokerReady = missingIsRefusal || !failed.some((f) => f.kind === 'missing-stream') || (await this.declareStreams());
    const rejected = failed.filter((f) => f.kind === 'rejected' || (f.kind === 'missing-stream' && missingIsRefusal));
    const handedBack = failed.filter((f) => !rejected.includes(f));
    const dead = await markOutboxRejected(
      pool,
      schema,
      relayId,
      rejected.map((f) => ({
        id: f.row.id,
        error: publishErrorText(f.error, f.row.subject),
        retryInMs: backoffDelayMs(f.row.attempt_count + 1, { baseMs: this.options.retryBaseMs, maxMs: this.options.retryMaxMs }),
      })),
      this.options.maxAttempts,
    );
    if (handedBack.length > 0) {
      const first = handedBack[0]!;
      await releaseUnpublishedOutboxRows(
        pool,
        schema,
        relayId,
        handedBack.map((f) => f.row.id),
        `not published yet: ${publishErrorText(first.error, first.row.subject)}`,
      );
    }
    if (rejected.length > 0) {
      const first = rejected[0]!;
      this.options.logger.warn(
        { schema, refused: rejected.length, firstError: publishErrorText(first.error, first.row.subject) },
        'outbox publish refused; backing off',
      );
    }
    for (const row of dead) {
      this.options.logger.error(
        { schema, outboxId: row.id, eventType: row.event_type, lastError: row.last_error },
        'outbox row dead: the broker refused it every time',
      );
    }
    return handedBack.some((f) => f.kind === 'unanswered') || !brokerReady ? 'unanswered' : rows.length;
  }

  private publish(js: JetStreamClient, row: OutboxRow) {
    return js.publish(row.subject, JSON.stringify(row.payload), { msgID: row.dedupe_key, timeout: this.options.publishTimeoutMs });
  }

  /** Declares the streams; answers whether that worked (if not, the broker is not ready). */
  private async declareStreams(): Promise<boolean> {
    try {
      await this.options.declareStreams();
      this.streamsDeclaredAt = Date.now();
      return true;
    } catch (error) {
      this.streamsDeclaredAt = 0;
      this.options.logger.warn(
        { err: error, schema: this.options.schema },
        'declaring the outbox’s JetStream streams failed; trying again',
      );
      return false;
    }
  }

  private async keepHouse(): Promise<void> {
    const { pool, schema } = this.options;
    const released = await releaseStaleOutboxLocks(pool, schema, this.options.lockTimeoutMs);
    if (released > 0) {
      this.options.logger.warn({ schema, released }, 'released outbox rows whose relay lock expired');
      this.wake();
    }
    while (!this.stopped && (await prunePublishedOutboxRows(pool, schema, this.options.retainPublishedMs, 1_000)) === 1_000);
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      this.woken = false;
      let claimed: number | 'unanswered' = 0;
      try {
        claimed = await this.runOnce();
      } catch (error) {
        this.options.logger.warn({ err: error, schema: this.options.schema }, 'outbox relay cycle failed');
      }
      if (this.stopped) break;
      if (claimed === 'unanswered') {
        this.unansweredCycles += 1;
        if (this.unansweredCycles === QUIET_UNANSWERED_CYCLES + 1)
          this.options.logger.warn({ schema: this.options.schema }, 'NATS does not answer: the outbox waits for it');
        await sleep(backoffDelayMs(this.unansweredCycles, OUTAGE_BACKOFF), undefined, { signal: this.stopping.signal }).catch(() => {});
        continue;
      }
      if (this.unansweredCycles > QUIET_UNANSWERED_CYCLES) {
        this.options.logger.info(
          { schema: this.options.schema, cycles: this.unansweredCycles },
          'NATS answers again: the outbox carries on',
        );
      }
      this.unansweredCycles = 0;
      if (claimed === this.options.batchSize || this.woken) continue;
      await this.sleep(await this.untilNextDue());
    }
  }

  private async untilNextDue(): Promise<number> {
    try {
      const due = await nextOutboxDueAt(this.options.pool, this.options.schema);
      if (!due) return this.options.pollIntervalMs;
      return Math.min(this.options.pollIntervalMs, Math.max(0, due.getTime() - Date.now()));
    } catch {
      return this.options.pollIntervalMs;
    }
  }

  /** Sleeps until woken, stopped or ms passed. */
  private sleep(ms: number): Promise<void> {
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

import { NotificationListener, type SqlPool } from '@atelier/db';
import type { JetStreamClient } from '@atelier/nats';
import { claimDueOutboxRows, prunePublishedOutboxRows, type OutboxRow } from './outbox-sql.js';
import { outboxChannel } from './outbox-table.js';
import { RelayCycles, type RelayLogger } from './relay-cycles.js';
import { settlePublishes, type SettleOptions } from './settle-publishes.js';

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
  private readonly cycles: RelayCycles;
  private readonly settling: SettleOptions;
  /** When the streams were last declared (0: not yet, or a publish found one missing since). */
  private streamsDeclaredAt = 0;

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
    const { pool, schema, relayId, logger, batchSize, pollIntervalMs, maxAttempts, retryBaseMs, retryMaxMs } = this.options;
    this.listener = new NotificationListener({ databaseUrl: options.databaseUrl, logger, applicationName: `${schema}-outbox-listener` });
    this.listener.on(outboxChannel(schema), () => this.wake());
    const logFields = { schema };
    this.cycles = new RelayCycles({
      pool,
      schema,
      cycle: () => this.runOnce(),
      batchSize,
      pollIntervalMs,
      logger,
      logFields,
      quietUnansweredCycles: QUIET_UNANSWERED_CYCLES,
      lockTimeoutMs: this.options.lockTimeoutMs,
      housekeepingName: `${schema} outbox housekeeping`,
      moreHousekeeping: () => this.prunePublished(),
    });
    this.settling = {
      pool,
      schema,
      relayId,
      maxAttempts,
      retryBaseMs,
      retryMaxMs,
      logger,
      logFields,
      streamsDeclaredAt: () => this.streamsDeclaredAt,
      restoreStreams: () => this.declareStreams(),
    };
  }

  /** Starts listening and publishing; resolves once the LISTEN connection was tried (the poll covers its absence). */
  async start(): Promise<void> {
    if (this.cycles.running) return;
    await this.listener.start();
    this.cycles.start();
  }

  /** Asks for a cycle now (coalescing). */
  wake(): void {
    this.cycles.wake();
  }

  /** Ends the loop after the cycle in flight (whose rows are settled: none is left claimed). */
  async stop(): Promise<void> {
    await this.cycles.stop();
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
    return settlePublishes(this.settling, rows, results);
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

  private async prunePublished(): Promise<void> {
    const { pool, schema } = this.options;
    while (this.cycles.running && (await prunePublishedOutboxRows(pool, schema, this.options.retainPublishedMs, 1_000)) === 1_000);
  }
}

import type { SqlPool } from '@atelier/db';
import type { Logger } from '@atelier/logging';
import type { JetStreamClient } from '@atelier/nats';
import { RelayCycles } from '@atelier/outbox';
import { claimDueOutboxRows } from '../db/outbox-sql.js';
import { JOBS_OUTBOX_SCHEMA, type ClaimedOutboxRow } from '../db/outbox-row.js';
import { HandOverLane } from './outbox-hand-over.js';
import { publishAndSettle, type OutboxPublishing, type PublishableRow } from './outbox-publish.js';

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
 * poll interval. Any number of replicas may run one. Its loop, statements and settlement are
 * libs/outbox's; its own are the rows transitions hand over (outbox-hand-over.ts) and the trace
 * each publish continues (outbox-publish.ts).
 */
export class OutboxRelay {
  private readonly options: Required<Omit<OutboxRelayOptions, 'publishLag' | 'restoreStreams'>> &
    Pick<OutboxRelayOptions, 'publishLag' | 'restoreStreams'>;
  private readonly cycles: RelayCycles;
  private readonly publishing: OutboxPublishing;
  private readonly handOver: HandOverLane;
  /** When the streams were last declared successfully (a publish that finds none after that is refused). */
  private streamsDeclaredAt = 0;

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
    const { pool, relayId, logger, broker } = this.options;
    this.cycles = new RelayCycles({
      pool,
      schema: JOBS_OUTBOX_SCHEMA,
      cycle: () => this.runOnce(),
      batchSize: this.options.batchSize,
      pollIntervalMs: this.options.pollIntervalMs,
      logger,
      lockTimeoutMs: this.options.lockTimeoutMs,
      // Published rows are pruned by background/retention-pruner.ts.
      housekeepingName: 'outbox housekeeping',
    });
    this.publishing = {
      settling: {
        pool,
        schema: JOBS_OUTBOX_SCHEMA,
        relayId,
        maxAttempts: this.options.maxAttempts,
        retryBaseMs: this.options.retryBaseMs,
        retryMaxMs: this.options.retryMaxMs,
        logger,
        streamsDeclaredAt: () => this.streamsDeclaredAt,
        restoreStreams: () => this.restoreStreams(),
      },
      publishTimeoutMs: this.options.publishTimeoutMs,
      publishLag: this.options.publishLag,
    };
    this.handOver = new HandOverLane({
      pool,
      relayId,
      broker,
      logger,
      publishing: this.publishing,
      flushSize: this.options.batchSize * 5,
      running: () => this.cycles.running,
      wake: () => this.wake(),
      handOff: () => this.handOffLane,
    });
  }

  /** Where the dispatches the hand-over lane publishes go first: to workers waiting at this replica. */
  private handOffLane: ((rows: readonly PublishableRow[]) => Promise<ReadonlySet<string>>) | undefined;

  /** Sends handed-over dispatches to waiting workers first (dispatch-hand-off.ts); the rest are published. */
  handOffTo(handOff: (rows: readonly PublishableRow[]) => Promise<ReadonlySet<string>>): void {
    this.handOffLane = handOff;
  }

  start(): void {
    this.cycles.start();
  }

  /** Asks for a cycle now. Cheap and coalescing: call it after every commit that wrote the outbox. */
  wake(): void {
    this.cycles.wake();
  }

  async stop(): Promise<void> {
    await this.cycles.stop();
    // Rows handed over in this very turn are handed back now (the relay is stopped), not left to a timer.
    await this.handOver.drain();
  }

  /**
   * The name a transition writes its due outbox rows claimed under, for this relay to publish
   * right after the commit (publishClaimed); null — write them pending — while the relay is
   * stopped, the broker away or too many handed-over rows are still unsettled.
   */
  claimLane(): string | null {
    if (!this.cycles.running || this.cycles.unansweredCycles > 0 || this.handOver.unsettled >= this.options.maxHandedOver) return null;
    return this.options.broker() ? this.options.relayId : null;
  }

  /** Publishes rows a committed transition wrote claimed for this relay (claimLane): HandOverLane. */
  publishClaimed(rows: readonly ClaimedOutboxRow[]): void {
    this.handOver.push(rows);
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
    return publishAndSettle(this.publishing, js, rows);
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
}

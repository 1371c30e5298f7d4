import type { SqlPool } from '@atelier/db';
import type { Logger } from '@atelier/logging';
import type { JetStreamClient } from '@atelier/nats';
import { markOutboxPublished, releaseUnpublishedOutboxRows } from '@atelier/outbox';
import { JOBS_OUTBOX_SCHEMA, type ClaimedOutboxRow } from '../db/outbox-row.js';
import { publishAndSettle, type OutboxPublishing, type PublishableRow } from './outbox-publish.js';

export interface HandOverOptions {
  pool: SqlPool;
  relayId: string;
  broker: () => JetStreamClient | undefined;
  logger: Logger;
  publishing: OutboxPublishing;
  /** Rows one flush takes at most. */
  flushSize: number;
  /** Whether the relay runs: a stopped relay hands the rows back to pending. */
  running: () => boolean;
  /** Wakes the relay's loop: rows went back to pending, or the broker did not answer. */
  wake: () => void;
  /**
   * Hands dispatches straight to waiting workers (dispatch-hand-off.ts), before the rest is
   * published; answers the ids of the rows whose dispatch is done that way.
   */
  handOff: () => ((rows: readonly PublishableRow[]) => Promise<ReadonlySet<string>>) | undefined;
}

/**
 * The rows committed transitions wrote claimed for this relay (OutboxRelay.claimLane), published
 * right after their commit: the rows of every commit in one turn of the event loop go together,
 * settled as a claimed batch is — published, refused (backed off) or handed back to pending when
 * the broker does not answer. Dispatches a waiting worker has room for are handed to it first, and
 * settled published with the rest.
 */
export class HandOverLane {
  /** Rows handed over, waiting for the next flush. */
  private waiting: PublishableRow[] = [];
  /** Of those, and of the flushes running, how many are not settled yet. */
  private unsettledRows = 0;
  private readonly flushes = new Set<Promise<void>>();
  private flushScheduled = false;

  constructor(private readonly options: HandOverOptions) {}

  /** Rows handed over and not settled yet. */
  get unsettled(): number {
    return this.unsettledRows;
  }

  push(rows: readonly ClaimedOutboxRow[]): void {
    if (rows.length === 0) return;
    for (const row of rows) this.waiting.push({ ...row, available_at: new Date(row.available_at), attempt_count: 0 });
    this.unsettledRows += rows.length;
    this.scheduleFlush();
  }

  /** Hands every waiting row on now (the relay stopped: they go back to pending) and waits for every flush. */
  async drain(): Promise<void> {
    while (this.waiting.length > 0) this.flush();
    await Promise.all(this.flushes);
  }

  /**
   * At most two flushes run at once: under load the rows handed over meanwhile leave together in
   * the next one (one publish round and one UPDATE for many commits), and a lone commit's rows
   * leave at once (a microtask: after the announcements of its whole batch).
   */
  private scheduleFlush(): void {
    if (this.flushScheduled || this.flushes.size >= 2 || this.waiting.length === 0) return;
    this.flushScheduled = true;
    queueMicrotask(() => {
      this.flushScheduled = false;
      if (this.waiting.length > 0) this.flush();
    });
  }

  /** The dispatches handed to waiting workers; none when that fails (they go through NATS: a duplicate is harmless). */
  private async handOff(rows: readonly PublishableRow[]): Promise<ReadonlySet<string>> {
    const handOff = this.options.handOff();
    if (!handOff) return new Set();
    try {
      return await handOff(rows);
    } catch (error) {
      this.options.logger.warn({ err: error, rows: rows.length }, 'handing dispatches to waiting workers failed; they go through NATS');
      return new Set();
    }
  }

  private flush(): void {
    const { options } = this;
    const rows = this.waiting.splice(0, options.flushSize);
    const flush = (async () => {
      try {
        const handedOver = options.running() ? await this.handOff(rows) : new Set<string>();
        const delivered = rows.filter((row) => handedOver.has(row.id));
        const rest = handedOver.size === 0 ? rows : rows.filter((row) => !handedOver.has(row.id));
        const js = options.broker();
        if (!js || !options.running()) {
          const ids = (list: readonly PublishableRow[]) => list.map((row) => row.id);
          await markOutboxPublished(options.pool, JOBS_OUTBOX_SCHEMA, options.relayId, ids(delivered));
          await releaseUnpublishedOutboxRows(
            options.pool,
            JOBS_OUTBOX_SCHEMA,
            options.relayId,
            ids(rest),
            options.running() ? 'not published yet: NATS is not connected' : 'handed back: the relay stopped',
          );
          if (rest.length > 0) options.wake();
          return;
        }
        if ((await publishAndSettle(options.publishing, js, rest, delivered)) === 'unanswered') options.wake();
      } catch (error) {
        // Left claimed: once the lock expires any relay publishes them (releaseStaleOutboxLocks).
        options.logger.warn({ err: error, rows: rows.length }, 'settling handed-over outbox rows failed; their locks will expire');
      } finally {
        this.unsettledRows -= rows.length;
      }
    })();
    this.flushes.add(flush);
    void flush.finally(() => {
      this.flushes.delete(flush);
      this.scheduleFlush();
    });
  }
}

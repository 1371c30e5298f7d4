import type { SqlPool } from '@atelier/db';
import type { Logger } from '@atelier/logging';
import type { JetStreamClient } from '@atelier/nats';
import { releaseUnpublishedOutboxRows } from '@atelier/outbox';
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
}

/**
 * The rows committed transitions wrote claimed for this relay (OutboxRelay.claimLane), published
 * right after their commit: the rows of every commit in one turn of the event loop go together,
 * settled as a claimed batch is — published, refused (backed off) or handed back to pending when
 * the broker does not answer.
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

  private flush(): void {
    const { options } = this;
    const rows = this.waiting.splice(0, options.flushSize);
    const flush = (async () => {
      const js = options.broker();
      try {
        if (!js || !options.running()) {
          await releaseUnpublishedOutboxRows(
            options.pool,
            JOBS_OUTBOX_SCHEMA,
            options.relayId,
            rows.map((row) => row.id),
            options.running() ? 'not published yet: NATS is not connected' : 'handed back: the relay stopped',
          );
          options.wake();
          return;
        }
        if ((await publishAndSettle(options.publishing, js, rows)) === 'unanswered') options.wake();
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

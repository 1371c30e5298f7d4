import type { SqlPool } from '@atelier/db';
import { startPeriodicTask, sweepInBatches, type PeriodicTask, type SweptBatch } from '@atelier/lifecycle';
import type { Logger } from '@atelier/logging';
import { pruneEndedQuotaHits } from '../db/quota-hits-sql.js';
import { pruneJobEvents, prunePublishedOutbox, tryLockRetention, unlockRetention } from '../db/retention-sql.js';

/** The tables retention prunes, as the metric labels them. */
export type RetentionTable = 'outbox' | 'job_events' | 'quota_hits';

export interface RetentionPrunerOptions {
  pool: SqlPool;
  logger: Logger;
  intervalMs: number;
  /** Published outbox rows are deleted this long after their publication. */
  outboxRetentionMs: number;
  /** job_events of jobs terminal for this many days are pruned (their history archived); 0 keeps them. */
  jobEventsRetentionDays: number;
  /** Rows per delete statement (each its own transaction). */
  batchSize: number;
  /** Pause between two statements, so pruning a backlog never crowds the hot path. */
  batchPauseMs: number;
  /** Told after each batch how many rows went. */
  onPruned?: (table: RetentionTable, count: number) => void;
}

/**
 * Keeps the jobs schema's history bounded (docs/services.md, "Retention: the policy"): published outbox rows after
 * outboxRetentionMs, the job_events of jobs terminal for jobEventsRetentionDays — their
 * histories archived first, so the users' views do not change — and the quota refusals of
 * periods that ended (the overview shows the current ones only). A run deletes in batches of
 * batchSize rows, each batch one short transaction, pausing batchPauseMs between them, until
 * nothing is due. One replica prunes at a time: a run holds a session advisory lock on one
 * pooled connection (released when the run ends, or with the session if the process dies); a
 * replica that finds it taken skips its turn.
 */
export class RetentionPruner {
  private task: PeriodicTask | undefined;

  constructor(private readonly options: RetentionPrunerOptions) {}

  start(): void {
    const { intervalMs, logger } = this.options;
    this.task = startPeriodicTask({ name: 'retention pruning', intervalMs, logger, run: (signal) => this.runOnce(signal) });
  }

  /** Stops between two batches: the statement under way finishes, nothing else starts. */
  async stop(): Promise<void> {
    await this.task?.stop();
  }

  /**
   * One run over the tables, until nothing is due or `signal` aborts; answers the rows deleted,
   * or null when another replica holds the lock.
   */
  async runOnce(signal: AbortSignal = new AbortController().signal): Promise<Record<RetentionTable, number> | null> {
    const client = await this.options.pool.connect();
    let healthy = true;
    try {
      if (!(await tryLockRetention(client))) return null;
      try {
        const outbox = await this.inBatches('outbox', signal, async (cursor: Date | null) => {
          const batch = await prunePublishedOutbox(client, this.options.outboxRetentionMs, this.options.batchSize, cursor);
          return { count: batch.deleted, next: batch.deleted < this.options.batchSize ? null : batch.reached };
        });
        const jobEvents =
          this.options.jobEventsRetentionDays === 0
            ? 0
            : await this.inBatches('job_events', signal, async (cursor: string | null) => {
                const batch = await pruneJobEvents(client, this.options.jobEventsRetentionDays, this.options.batchSize, cursor ?? '0');
                return { count: batch.deleted, next: batch.next };
              });
        const quotaHits = await this.inBatches('quota_hits', signal, async () => {
          const deleted = await pruneEndedQuotaHits(client, this.options.batchSize);
          return { count: deleted, next: deleted < this.options.batchSize ? null : true };
        });
        if (outbox + jobEvents + quotaHits > 0) this.options.logger.info({ outbox, jobEvents, quotaHits }, 'retention pruned history');
        return { outbox, job_events: jobEvents, quota_hits: quotaHits };
      } finally {
        await unlockRetention(client).catch(() => {
          healthy = false; // the session, and with it the lock, goes with the connection
        });
      }
    } catch (error) {
      healthy = false;
      throw error;
    } finally {
      client.release(!healthy);
    }
  }

  /** One table, in batches from its start with a pause between two, until nothing is due or the signal aborts. */
  private inBatches<C>(table: RetentionTable, signal: AbortSignal, batch: (cursor: C | null) => Promise<SweptBatch<C>>) {
    return sweepInBatches(batch, { signal, pauseMs: this.options.batchPauseMs, onBatch: (count) => this.options.onPruned?.(table, count) });
  }
}

import { inTransaction, type SqlPool } from '@atelier/db';
import { startPeriodicTask, type PeriodicTask } from '@atelier/lifecycle';
import type { Logger } from '@atelier/logging';
import type { OutboxSubjects } from '../db/job-row.js';
import { lockRedispatch, redispatchStaleJobs } from '../db/outbox-sql.js';

export interface StaleDispatchSweeperOptions {
  pool: SqlPool;
  subjects: OutboxSubjects;
  logger: Logger;
  /** Called after a commit that queued dispatches (their outbox rows want publishing). */
  onOutboxWrite: () => void;
  intervalMs: number;
  /** A queued job due this long with no dispatch in flight or recently published is dispatched again. */
  staleAfterMs: number;
  batchSize?: number;
  /** Told how many jobs each sweep dispatched again. */
  onRedispatch?: (count: number) => void;
}

/**
 * The last safety net of "a job is never lost": the outbox guarantees a dispatch reaches
 * JetStream, but a message can still be lost after that (dropped after max_deliver redeliveries
 * or max_age, a stream deleted and recreated). A queued job overdue by staleAfterMs with no
 * dispatch on its way gets a new one. Workers treat an extra dispatch like any duplicate. One
 * replica sweeps at a time (an advisory lock); the others skip their turn.
 */
export class StaleDispatchSweeper {
  private task: PeriodicTask | undefined;

  constructor(private readonly options: StaleDispatchSweeperOptions) {}

  start(): void {
    const { intervalMs, logger } = this.options;
    this.task = startPeriodicTask({ name: 'stale dispatch sweep', intervalMs, logger, run: () => this.runOnce() });
  }

  async stop(): Promise<void> {
    await this.task?.stop();
  }

  /** Sweeps until no stale job is left; answers how many jobs were dispatched again. */
  async runOnce(): Promise<number> {
    const batchSize = this.options.batchSize ?? 500;
    let total = 0;
    for (;;) {
      const jobIds = await inTransaction(this.options.pool, async (client) =>
        (await lockRedispatch(client)) ? redispatchStaleJobs(client, this.options.staleAfterMs, batchSize, this.options.subjects) : null,
      );
      if (jobIds === null) return total; // another replica is sweeping
      if (jobIds.length > 0) {
        total += jobIds.length;
        this.options.onOutboxWrite();
        this.options.onRedispatch?.(jobIds.length);
        this.options.logger.warn(
          { count: jobIds.length, firstJobId: jobIds[0], staleAfterMs: this.options.staleAfterMs },
          'dispatched stale queued jobs again: their dispatch messages were lost',
        );
      }
      if (jobIds.length < batchSize) return total;
    }
  }
}

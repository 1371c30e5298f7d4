import { inTransaction, type SqlPool } from '@atelier/db';
import { BatchedSweep } from '@atelier/lifecycle';
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
  /** Told how many jobs each batch dispatched again. */
  onRedispatch?: (count: number) => void;
}

/**
 * The last safety net of "a job is never lost": the outbox guarantees a dispatch reaches
 * JetStream, but a message can still be lost after that (dropped after max_deliver redeliveries
 * or max_age, a stream deleted and recreated). A queued job overdue by staleAfterMs with no
 * dispatch on its way gets a new one. Workers treat an extra dispatch like any duplicate. One
 * replica sweeps at a time (an advisory lock); the others skip their turn. runOnce answers how
 * many jobs were dispatched again.
 */
export class StaleDispatchSweeper extends BatchedSweep<string> {
  constructor(options: StaleDispatchSweeperOptions) {
    const { pool, subjects, logger, onOutboxWrite, intervalMs, staleAfterMs, batchSize = 500, onRedispatch } = options;
    super({
      name: 'stale dispatch sweep',
      intervalMs,
      batchSize,
      logger,
      batch: (limit) =>
        inTransaction(pool, async (client) =>
          (await lockRedispatch(client)) ? redispatchStaleJobs(client, staleAfterMs, limit, subjects) : null,
        ),
      onBatch: (jobIds) => {
        onOutboxWrite();
        onRedispatch?.(jobIds.length);
        logger.warn(
          { count: jobIds.length, firstJobId: jobIds[0], staleAfterMs },
          'dispatched stale queued jobs again: their dispatch messages were lost',
        );
      },
    });
  }
}

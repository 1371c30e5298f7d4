import type { SqlPool } from '@atelier/db';
import { BatchedSweep } from '@atelier/lifecycle';
import type { Logger } from '@atelier/logging';
import type { JobRow, OutboxSubjects } from '../db/job-row.js';
import { expireStartDeadlines } from '../db/transitions/expire-sql.js';
import { announce, type AnnounceTargets } from '../announce/announce.js';

export interface StartDeadlineSweeperOptions {
  pool: SqlPool;
  /** Asked per batch: the relay that claims the lifecycle events may change between batches. */
  subjects: () => OutboxSubjects;
  logger: Logger;
  /** Where ended jobs are announced (relay, WatchJob streams, metrics). */
  announceTo: AnnounceTargets;
  intervalMs: number;
  batchSize?: number;
}

/**
 * Ends the queued jobs that no worker started by their start deadline (cancelled,
 * START_DEADLINE_EXCEEDED: db/transitions/expire-sql.ts), so that their owners and the lifecycle
 * stream hear of it. The deadline itself is kept by the claim, which refuses such jobs: this sweep
 * only makes the end visible, within its interval. Any number of replicas sweep at once (SKIP
 * LOCKED). runOnce answers how many jobs were ended.
 */
export class StartDeadlineSweeper extends BatchedSweep<JobRow> {
  constructor(options: StartDeadlineSweeperOptions) {
    const { pool, subjects, logger, announceTo, intervalMs, batchSize = 500 } = options;
    super({
      name: 'start deadline sweep',
      intervalMs,
      batchSize,
      logger,
      batch: (limit) => expireStartDeadlines(pool, limit, subjects()),
      onBatch: (ended) => {
        announce(announceTo, 'ended', ended);
        for (const row of ended) announceTo.metrics.startDeadlineExpired.inc({ job_type: row.job_type });
        logger.info({ count: ended.length, firstJobId: ended[0]!.id }, 'ended queued jobs past their start deadline');
      },
    });
  }
}

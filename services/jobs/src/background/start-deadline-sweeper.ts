import type { SqlPool } from '@atelier/db';
import { startPeriodicTask, type PeriodicTask } from '@atelier/lifecycle';
import type { Logger } from '@atelier/logging';
import type { OutboxSubjects } from '../db/job-row.js';
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
 * only makes the end visible, within its interval. Any number of replicas sweep at once (SKIP LOCKED).
 */
export class StartDeadlineSweeper {
  private task: PeriodicTask | undefined;

  constructor(private readonly options: StartDeadlineSweeperOptions) {}

  start(): void {
    const { intervalMs, logger } = this.options;
    this.task = startPeriodicTask({ name: 'start deadline sweep', intervalMs, logger, run: () => this.runOnce() });
  }

  async stop(): Promise<void> {
    await this.task?.stop();
  }

  /** Sweeps until no job past its start deadline is left; answers how many were ended. */
  async runOnce(): Promise<number> {
    const batchSize = this.options.batchSize ?? 500;
    let total = 0;
    for (;;) {
      const ended = await expireStartDeadlines(this.options.pool, batchSize, this.options.subjects());
      if (ended.length > 0) {
        announce(this.options.announceTo, 'ended', ended);
        for (const row of ended) this.options.announceTo.metrics.startDeadlineExpired.inc({ job_type: row.job_type });
        total += ended.length;
        this.options.logger.info({ count: ended.length, firstJobId: ended[0]!.id }, 'ended queued jobs past their start deadline');
      }
      if (ended.length < batchSize) return total;
    }
  }
}

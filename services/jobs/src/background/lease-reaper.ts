import type { SqlPool } from '@atelier/db';
import { backoffDelayMs, startPeriodicTask, type PeriodicTask } from '@atelier/lifecycle';
import type { Logger } from '@atelier/logging';
import type { JobDefinitionRegistry } from '../definitions/index.js';
import type { OutboxSubjects } from '../db/job-row.js';
import { reapExpiredLeases } from '../db/transitions/reap-sql.js';
import { announce, type AnnounceTargets } from '../announce/announce.js';

export interface LeaseReaperOptions {
  pool: SqlPool;
  registry: JobDefinitionRegistry;
  subjects: OutboxSubjects;
  logger: Logger;
  /** Where reaped jobs are announced (relay, WatchJob streams, metrics). */
  announceTo: AnnounceTargets;
  intervalMs: number;
  batchSize?: number;
}

/**
 * Turns expired leases (a worker crashed, hung or lost its network) into `queued` with backoff
 * and a new dispatch, or into `failed` (LEASE_EXPIRED) when the attempts are spent. Expired rows
 * are locked FOR UPDATE SKIP LOCKED inside the reaping transaction, so any number of replicas
 * can reap at once and each expired lease is handled exactly once.
 */
export class LeaseReaper {
  private task: PeriodicTask | undefined;

  constructor(private readonly options: LeaseReaperOptions) {}

  start(): void {
    const { intervalMs, logger } = this.options;
    this.task = startPeriodicTask({ name: 'lease reaping', intervalMs, logger, run: () => this.runOnce() });
  }

  async stop(): Promise<void> {
    await this.task?.stop();
  }

  /** Reaps until no expired lease is left; answers how many jobs were requeued and failed. */
  async runOnce(): Promise<{ requeued: number; failed: number }> {
    const batchSize = this.options.batchSize ?? 100;
    const total = { requeued: 0, failed: 0 };
    for (;;) {
      const reaped = await reapExpiredLeases(
        this.options.pool,
        batchSize,
        (expired) => {
          const definition = this.options.registry.find(expired.job_type);
          const requeue = expired.attempt_count < expired.max_attempts;
          return {
            jobId: expired.id,
            requeue,
            delayMs: requeue && definition ? backoffDelayMs(expired.attempt_count, definition.retryBackoff) : 0,
          };
        },
        this.options.subjects,
      );
      if (reaped.length > 0) {
        const requeued = reaped.filter((row) => row.status === 'queued');
        const failed = reaped.filter((row) => row.status !== 'queued');
        const { announceTo } = this.options;
        announce(announceTo, 'requeued', requeued);
        announce(announceTo, 'ended', failed);
        announceTo.metrics.leaseExpiries.inc({ outcome: 'requeued' }, requeued.length);
        announceTo.metrics.leaseExpiries.inc({ outcome: 'failed' }, failed.length);
        total.requeued += requeued.length;
        total.failed += failed.length;
        this.options.logger.warn({ requeued: requeued.length, failed: failed.length }, 'reaped expired leases');
      }
      if (reaped.length < batchSize) return total;
    }
  }
}

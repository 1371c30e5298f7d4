import type { SqlPool } from '@atelier/db';
import { BatchedSweep, backoffDelayMs } from '@atelier/lifecycle';
import type { Logger } from '@atelier/logging';
import type { JobDefinitionRegistry } from '../definitions/index.js';
import type { JobRow, OutboxSubjects } from '../db/job-row.js';
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
 * can reap at once and each expired lease is handled exactly once. runOnce answers how many
 * jobs were reaped.
 */
export class LeaseReaper extends BatchedSweep<JobRow> {
  constructor(options: LeaseReaperOptions) {
    const { pool, registry, subjects, logger, announceTo, intervalMs, batchSize = 100 } = options;
    super({
      name: 'lease reaping',
      intervalMs,
      batchSize,
      logger,
      batch: (limit) =>
        reapExpiredLeases(
          pool,
          limit,
          (expired) => {
            const definition = registry.find(expired.job_type);
            const requeue = expired.attempt_count < expired.max_attempts;
            return {
              jobId: expired.id,
              requeue,
              delayMs: requeue && definition ? backoffDelayMs(expired.attempt_count, definition.retryBackoff) : 0,
            };
          },
          subjects,
        ),
      onBatch: (reaped) => {
        const requeued = reaped.filter((row) => row.status === 'queued');
        const failed = reaped.filter((row) => row.status !== 'queued');
        announce(announceTo, 'requeued', requeued);
        announce(announceTo, 'ended', failed);
        announceTo.metrics.leaseExpiries.inc({ outcome: 'requeued' }, requeued.length);
        announceTo.metrics.leaseExpiries.inc({ outcome: 'failed' }, failed.length);
        logger.warn({ requeued: requeued.length, failed: failed.length }, 'reaped expired leases');
      },
    });
  }
}

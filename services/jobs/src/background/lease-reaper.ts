import type { SqlPool } from '@atelier/db';
import { BatchedSweep } from '@atelier/lifecycle';
import type { Logger } from '@atelier/logging';
import type { JobDefinitionRegistry } from '../definitions/index.js';
import type { JobRow, OutboxSubjects } from '../db/job-row.js';
import { msUntilNextLeaseExpiry, reapExpiredLeases } from '../db/transitions/reap-sql.js';
import { decideLeaseExpiry } from '../domain/retry-policy.js';
import { announce, type AnnounceTargets } from '../announce/announce.js';

export interface LeaseReaperOptions {
  pool: SqlPool;
  registry: JobDefinitionRegistry;
  subjects: OutboxSubjects;
  logger: Logger;
  /** Where reaped jobs are announced (relay, WatchJob streams, metrics). */
  announceTo: AnnounceTargets;
  /** The longest the reaper sleeps (REAPER_INTERVAL_MS); it wakes sooner when a lease expires sooner. */
  intervalMs: number;
  batchSize?: number;
}

/**
 * Past a lease's expiry before the reaper looks: the reap takes leases that expired before its
 * statement began, so a wake-up exactly on time could find the lease not yet expired.
 */
const AFTER_EXPIRY_MS = 20;

/**
 * The shortest sleep between two runs: when a lease is still there after its expiry (another
 * replica is reaping it, a heartbeat holds its row), the reaper looks again soon, not at once.
 */
const MIN_SLEEP_MS = 100;

/**
 * How long the reaper sleeps after a run: until the earliest lease expires (then a moment more),
 * at most the interval. A job claimed after the run expires a whole lease later: with the interval
 * no longer than the lease (the defaults: 10 s, 60 s), the next run comes in time to see it.
 */
export function reaperSleepMs(untilNextExpiryMs: number | null, intervalMs: number): number {
  if (untilNextExpiryMs === null) return intervalMs;
  return Math.min(intervalMs, Math.max(MIN_SLEEP_MS, untilNextExpiryMs + AFTER_EXPIRY_MS));
}

/**
 * Turns expired leases (a worker crashed, hung or lost its network) into `queued` with a new
 * dispatch — at once the first time, with backoff when its leases keep expiring
 * (decideLeaseExpiry) — or into `failed` (LEASE_EXPIRED) when the attempts are spent. It wakes as
 * the earliest lease expires (reaperSleepMs), so a job is taken over within about its lease
 * of its worker's last heartbeat (docs/fault-model.md). Expired rows
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
      nextRunInMs: async () => reaperSleepMs(await msUntilNextLeaseExpiry(pool), intervalMs),
      batch: (limit) =>
        reapExpiredLeases(
          pool,
          limit,
          (expired) => {
            const decision = decideLeaseExpiry(
              { attempt: expired.attempt_count, maxAttempts: expired.max_attempts, earlierLeaseExpiries: expired.earlier_lease_expiries },
              registry.find(expired.job_type),
            );
            return { jobId: expired.id, requeue: decision.requeue, delayMs: decision.requeue ? decision.delayMs : 0 };
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

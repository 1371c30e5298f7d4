import { inTransaction, type SqlPool } from '@atelier/db';
import type { Logger } from '@atelier/logging';
import type { JobDefinitionRegistry } from '../definitions/index.js';
import type { OutboxSubjects } from '../db/job-row.js';
import { reapJobs, type ReapDecision } from '../db/job-transitions.js';
import { backoffMs } from '../domain/retry-policy.js';
import type { JobsMetrics } from '../jobs-metrics.js';

export interface LeaseReaperOptions {
  pool: SqlPool;
  registry: JobDefinitionRegistry;
  subjects: OutboxSubjects;
  logger: Logger;
  /** Called after a commit that queued or failed jobs (their outbox rows want publishing). */
  onOutboxWrite: () => void;
  /** Called after that commit with the reaped jobs, to wake their WatchJob streams. */
  onJobsChanged?: (jobIds: readonly string[]) => void;
  intervalMs: number;
  batchSize?: number;
  metrics?: Pick<JobsMetrics, 'leaseExpiries' | 'ended'>;
}

/**
 * Turns expired leases (a worker crashed, hung or lost its network) into `queued` with backoff
 * and a new dispatch, or into `failed` (LEASE_EXPIRED) when the attempts are spent. Expired rows
 * are locked FOR UPDATE SKIP LOCKED inside the reaping transaction, so any number of replicas
 * can reap at once and each expired lease is handled exactly once.
 */
export class LeaseReaper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: LeaseReaperOptions) {}

  start(): void {
    this.timer = setInterval(() => {
      this.running = this.runOnce().catch((error: unknown) => this.options.logger.warn({ err: error }, 'lease reaping failed'));
    }, this.options.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** Reaps until no expired lease is left; answers how many jobs were requeued and failed. */
  async runOnce(): Promise<{ requeued: number; failed: number }> {
    const batchSize = this.options.batchSize ?? 100;
    const total = { requeued: 0, failed: 0 };
    for (;;) {
      const reaped = await inTransaction(this.options.pool, async (client) => {
        const { rows } = await client.query<{ id: string; job_type: string; attempt_count: number; max_attempts: number }>({
          name: 'reaper.lock_expired',
          text: `SELECT id, job_type, attempt_count, max_attempts FROM jobs.generation_jobs
                  WHERE status = 'running' AND lease_expires_at < now()
                  ORDER BY lease_expires_at, id
                  LIMIT $1
                  FOR UPDATE SKIP LOCKED`,
          values: [batchSize],
        });
        const decisions: ReapDecision[] = rows.map((row) => {
          const definition = this.options.registry.find(row.job_type);
          const requeue = row.attempt_count < row.max_attempts;
          return { jobId: row.id, requeue, delayMs: requeue && definition ? backoffMs(row.attempt_count, definition) : 0 };
        });
        return reapJobs(client, decisions, this.options.subjects);
      });
      if (reaped.length > 0) {
        this.options.onOutboxWrite();
        this.options.onJobsChanged?.(reaped.map((row) => row.id));
        const requeued = reaped.filter((row) => row.status === 'queued').length;
        const { metrics } = this.options;
        if (metrics) {
          metrics.leaseExpiries.inc({ outcome: 'requeued' }, requeued);
          if (reaped.length > requeued) metrics.leaseExpiries.inc({ outcome: 'failed' }, reaped.length - requeued);
          for (const row of reaped) metrics.ended(row);
        }
        total.requeued += requeued;
        total.failed += reaped.length - requeued;
        this.options.logger.warn({ requeued, failed: reaped.length - requeued }, 'reaped expired leases');
      }
      if (reaped.length < batchSize) return total;
    }
  }
}

import type { jobsAdminV1 } from '@atelier/contracts';
import type { LeaseRow, Overview } from '../db/overview-sql.js';
import { queueMessage } from './job-mapper.js';

/** The leases grouped by worker (the rows come ordered by worker, then claim time). */
function toLiveWorkerMessages(leases: readonly LeaseRow[]): jobsAdminV1.LiveWorker[] {
  const workers = new Map<string, jobsAdminV1.LiveWorker>();
  for (const lease of leases) {
    const worker = workers.get(lease.workerId) ?? { workerId: lease.workerId, lastLeaseRenewalAt: lease.renewedAt, jobs: [] };
    if (lease.renewedAt > worker.lastLeaseRenewalAt!) worker.lastLeaseRenewalAt = lease.renewedAt;
    worker.jobs.push({
      jobId: lease.jobId,
      jobType: lease.jobType,
      attempt: lease.attempt,
      startedAt: lease.startedAt,
      leaseExpiresAt: lease.leaseExpiresAt,
    });
    workers.set(lease.workerId, worker);
  }
  return [...workers.values()];
}

export function toGetOverviewResponse(overview: Overview, bucketMinutes: number): jobsAdminV1.GetOverviewResponse {
  const { stats } = overview;
  return {
    generatedAt: overview.generatedAt,
    windowStart: overview.windowStart,
    bucketMinutes,
    throughput: overview.throughput,
    latencies: overview.latencies,
    queues: stats.queues.map((depth) => ({ ...depth, queue: queueMessage(depth.queue) })),
    outbox: {
      // QueueStats counts a relay's rows among the unpublished ones; the overview shows them apart.
      pending: stats.outboxPending - stats.outboxProcessing,
      processing: stats.outboxProcessing,
      dead: stats.outboxDead,
      oldestPendingAgeMs: stats.outboxOldestPendingAgeMs,
    },
    expiredLeases: stats.expiredLeases,
    workers: toLiveWorkerMessages(overview.leases),
    queueHistory: overview.queueHistory,
    quotaHits: overview.quotaHits,
  };
}

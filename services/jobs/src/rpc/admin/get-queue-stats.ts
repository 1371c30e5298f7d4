import type { jobsAdminV1 } from '@atelier/contracts';
import type { Handler } from '@atelier/grpc';
import type { JobsContext } from '../../jobs-context.js';
import { queueMessage } from '../../job-mapper.js';

type GetQueueStats = Handler<typeof jobsAdminV1.JobsAdminServiceService.getQueueStats>;

/** Queue depth per queue, outbox backlog and expired leases, for dashboards and the operator CLI. */
export function getQueueStats({ pool }: JobsContext): GetQueueStats {
  return async () => {
    const queues = await pool.query<{ queue: string; ready: string; delayed: string; running: string; oldest_ready_age_ms: string | null }>(
      `SELECT q.queue,
              count(*) FILTER (WHERE j.status = 'queued' AND j.next_attempt_at <= now()) AS ready,
              count(*) FILTER (WHERE j.status = 'queued' AND j.next_attempt_at > now()) AS delayed,
              count(*) FILTER (WHERE j.status = 'running') AS running,
              floor(extract(epoch FROM now() - min(j.next_attempt_at) FILTER (WHERE j.status = 'queued' AND j.next_attempt_at <= now())) * 1000)
                AS oldest_ready_age_ms
         FROM (VALUES ('interactive'), ('background')) AS q(queue)
         LEFT JOIN jobs.generation_jobs j ON j.queue = q.queue AND j.status IN ('queued', 'running')
        GROUP BY q.queue ORDER BY q.queue DESC`,
    );
    const outbox = await pool.query<{ pending: string; dead: string; oldest_ms: string | null; expired: string }>(
      `SELECT (SELECT count(*) FROM jobs.outbox WHERE status IN ('pending', 'processing')) AS pending,
              (SELECT count(*) FROM jobs.outbox WHERE status = 'dead') AS dead,
              (SELECT floor(extract(epoch FROM now() - min(available_at)) * 1000) FROM jobs.outbox
                WHERE status = 'pending' AND available_at <= now()) AS oldest_ms,
              (SELECT count(*) FROM jobs.generation_jobs WHERE status = 'running' AND lease_expires_at < now()) AS expired`,
    );
    const stats = outbox.rows[0]!;
    return {
      queues: queues.rows.map((row) => ({
        queue: queueMessage(row.queue),
        ready: Number(row.ready),
        delayed: Number(row.delayed),
        running: Number(row.running),
        oldestReadyAgeMs: Number(row.oldest_ready_age_ms ?? 0),
      })),
      outboxPending: Number(stats.pending),
      outboxDead: Number(stats.dead),
      outboxOldestPendingAgeMs: Number(stats.oldest_ms ?? 0),
      expiredLeases: Number(stats.expired),
    };
  };
}

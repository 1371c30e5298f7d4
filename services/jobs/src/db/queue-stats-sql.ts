import type { Queryable } from '@atelier/db';

export interface QueueDepth {
  queue: string;
  ready: number;
  delayed: number;
  running: number;
  oldestReadyAgeMs: number;
}

/** What the operator API (GetQueueStats) and the Prometheus gauges report. */
export interface QueueStats {
  queues: QueueDepth[];
  /** Not yet published: pending (due or backing off) or processing (claimed by a relay). */
  outboxPending: number;
  /** Of those, the ones a relay holds. */
  outboxProcessing: number;
  outboxDead: number;
  outboxOldestPendingAgeMs: number;
  expiredLeases: number;
}

/**
 * Queue depth per queue, outbox backlog and expired leases, read in two statements. Every count
 * runs on an index of the live rows only (in flight, pending, dead, expired), so a scrape costs
 * the same however much history the tables hold.
 */
export async function readQueueStats(db: Queryable): Promise<QueueStats> {
  const queues = await db.query<{ queue: string; ready: string; delayed: string; running: string; oldest_ready_age_ms: string | null }>({
    name: 'stats.queue_depth',
    text: `SELECT q.queue,
                  count(*) FILTER (WHERE j.status = 'queued' AND j.next_attempt_at <= now()) AS ready,
                  count(*) FILTER (WHERE j.status = 'queued' AND j.next_attempt_at > now()) AS delayed,
                  count(*) FILTER (WHERE j.status = 'running') AS running,
                  floor(extract(epoch FROM now() - min(j.next_attempt_at) FILTER (WHERE j.status = 'queued' AND j.next_attempt_at <= now())) * 1000)
                    AS oldest_ready_age_ms
             FROM (VALUES ('interactive'), ('background')) AS q(queue)
             LEFT JOIN jobs.generation_jobs j ON j.queue = q.queue AND j.status IN ('queued', 'running')
            GROUP BY q.queue ORDER BY q.queue DESC`,
  });
  const outbox = await db.query<{ pending: string; processing: string; dead: string; oldest_ms: string | null; expired: string }>({
    name: 'stats.outbox_backlog',
    // One count per status, each on its partial index: an IN list matches neither predicate and
    // would scan the whole outbox, published history and all, at every scrape.
    text: `SELECT (SELECT count(*) FROM jobs.outbox WHERE status = 'pending') AS pending,
                  (SELECT count(*) FROM jobs.outbox WHERE status = 'processing') AS processing,
                  (SELECT count(*) FROM jobs.outbox WHERE status = 'dead') AS dead,
                  (SELECT floor(extract(epoch FROM now() - min(available_at)) * 1000) FROM jobs.outbox
                    WHERE status = 'pending' AND available_at <= now()) AS oldest_ms,
                  (SELECT count(*) FROM jobs.generation_jobs WHERE status = 'running' AND lease_expires_at < now()) AS expired`,
  });
  const stats = outbox.rows[0]!;
  return {
    queues: queues.rows.map((row) => ({
      queue: row.queue,
      ready: Number(row.ready),
      delayed: Number(row.delayed),
      running: Number(row.running),
      oldestReadyAgeMs: Number(row.oldest_ready_age_ms ?? 0),
    })),
    outboxPending: Number(stats.pending) + Number(stats.processing),
    outboxProcessing: Number(stats.processing),
    outboxDead: Number(stats.dead),
    outboxOldestPendingAgeMs: Number(stats.oldest_ms ?? 0),
    expiredLeases: Number(stats.expired),
  };
}

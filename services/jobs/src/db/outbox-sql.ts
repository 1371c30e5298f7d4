import type { Queryable } from '@atelier/db';
import type { OutboxSubjects } from './job-row.js';
import { dispatchPayloadSql, dispatchSubjectSql, redispatchDedupeSql } from './outbox-payload-sql.js';
import { claimDueOutboxRows as claimDueRows } from '@atelier/outbox';
import { JOBS_OUTBOX_SCHEMA, type OutboxRow } from './outbox-row.js';
import { providerHeldSql } from './provider-gates-sql.js';

/**
 * Claim first, publish after: due pending rows become `processing` under this relay's name, SKIP
 * LOCKED, no attempt counted (libs/outbox's statement, on jobs.outbox). The relay settles them
 * with libs/outbox's statements as well: jobs' own are those below, of its dead rows and its
 * dispatches.
 */
export function claimDueOutboxRows(db: Queryable, relayId: string, limit: number): Promise<OutboxRow[]> {
  return claimDueRows<OutboxRow>(db, JOBS_OUTBOX_SCHEMA, relayId, limit);
}

export async function listDeadOutboxRows(db: Queryable, afterId: string | undefined, limit: number): Promise<OutboxRow[]> {
  const result = await db.query<OutboxRow>(
    `SELECT * FROM jobs.outbox WHERE status = 'dead' AND ($1::bigint IS NULL OR id > $1::bigint) ORDER BY id LIMIT $2`,
    [afterId ?? null, limit + 1],
  );
  return result.rows;
}

/** dead → pending with a fresh attempt budget. Answers null for a row that is not dead. */
export async function replayDeadOutboxRow(db: Queryable, id: string): Promise<OutboxRow | null> {
  const result = await db.query<OutboxRow>(
    `UPDATE jobs.outbox SET status = 'pending', attempt_count = 0, available_at = now(), last_error = NULL
      WHERE id = $1 AND status = 'dead' RETURNING *`,
    [id],
  );
  return result.rows[0] ?? null;
}

export async function findOutboxRow(db: Queryable, id: string): Promise<OutboxRow | null> {
  const result = await db.query<OutboxRow>('SELECT * FROM jobs.outbox WHERE id = $1', [id]);
  return result.rows[0] ?? null;
}

/**
 * One stale-dispatch sweep at a time across replicas: a transaction-scoped advisory lock, taken
 * or not (another replica is sweeping; this one skips its turn).
 */
export async function lockRedispatch(db: Queryable): Promise<boolean> {
  const result = await db.query<{ locked: boolean }>({
    name: 'outbox.lock_redispatch',
    text: `SELECT pg_try_advisory_xact_lock(hashtext('atelier.jobs.redispatch_stale')) AS locked`,
  });
  return result.rows[0]!.locked;
}

/**
 * Queues a new dispatch for queued jobs that have been due for staleAfterMs with no dispatch on
 * its way: none pending or being published, none published within staleAfterMs. Their message was
 * lost after publication (JetStream dropped it after max_age, a stream was recreated), or their
 * dispatch row is dead (the broker refused it), and nothing else would ever run them: a queued job
 * is never left to an operator (a job its provider's gate holds back is being handed back, not
 * lost: it waits for the gate, provider-gates-sql.ts). The dead row stays for operators to see. Run it under
 * lockRedispatch: the NOT EXISTS reads a snapshot, so two sweepers at once could both dispatch a
 * job the other just did. Answers the ids of the jobs dispatched again.
 */
export async function redispatchStaleJobs(db: Queryable, staleAfterMs: number, limit: number, subjects: OutboxSubjects): Promise<string[]> {
  const result = await db.query<{ aggregate_id: string }>({
    name: 'outbox.redispatch_stale',
    text: `WITH stale AS (
             SELECT j.* FROM jobs.generation_jobs j
              WHERE j.status = 'queued'
                AND j.next_attempt_at < now() - make_interval(secs => $1::double precision / 1000)
                AND NOT ${providerHeldSql('j')}
                AND NOT EXISTS (
                      SELECT 1 FROM jobs.outbox o
                       WHERE o.aggregate_id = j.id AND o.event_type = 'job.dispatch'
                         AND (o.status IN ('pending', 'processing')
                              OR o.published_at > now() - make_interval(secs => $1::double precision / 1000)))
              ORDER BY j.next_attempt_at, j.id
              LIMIT $2
              FOR UPDATE)
           INSERT INTO jobs.outbox (aggregate_id, event_type, subject, dedupe_key, payload, trace_context)
           SELECT j.id, 'job.dispatch', ${dispatchSubjectSql('j', '$3', '$4')}, ${redispatchDedupeSql('j')}, ${dispatchPayloadSql('j')},
                  j.trace_context
             FROM stale j
           RETURNING aggregate_id`,
    values: [staleAfterMs, limit, subjects.dispatchInteractive, subjects.dispatchBackground],
  });
  return result.rows.map((row) => row.aggregate_id);
}

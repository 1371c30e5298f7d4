import type { Queryable } from '@atelier/db';
import type { OutboxSubjects } from './job-row.js';
import { dispatchPayloadSql, dispatchSubjectSql, redispatchDedupeSql } from './outbox-payload-sql.js';
import type { OutboxRow } from './outbox-row.js';

/**
 * Claim first, publish after: due pending rows become `processing` under this relay's name in
 * one statement. SKIP LOCKED lets any number of relays claim disjoint rows without waiting on
 * each other. No attempt is counted here: only the broker's refusal of a publish spends one
 * (markOutboxRejected), so an outage, or a relay that dies holding rows, never kills a row.
 */
export async function claimDueOutboxRows(db: Queryable, relayId: string, limit: number): Promise<OutboxRow[]> {
  const result = await db.query<OutboxRow>({
    name: 'outbox.claim_due',
    text: `UPDATE jobs.outbox o
              SET status = 'processing', locked_by = $1, locked_at = now()
            WHERE o.id IN (SELECT id FROM jobs.outbox
                            WHERE status = 'pending' AND available_at <= now()
                            ORDER BY available_at, id
                            LIMIT $2
                            FOR UPDATE SKIP LOCKED)
           RETURNING o.*`,
    values: [relayId, limit],
  });
  return result.rows;
}

/** The rows this relay still holds become published. A row whose lock expired and moved on is left alone. */
export async function markOutboxPublished(db: Queryable, relayId: string, ids: readonly string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const result = await db.query({
    name: 'outbox.mark_published',
    text: `UPDATE jobs.outbox SET status = 'published', published_at = now(), locked_by = NULL, locked_at = NULL, last_error = NULL
            WHERE id = ANY($1::bigint[]) AND locked_by = $2 AND status = 'processing'`,
    values: [ids, relayId],
  });
  return result.rowCount ?? 0;
}

/**
 * Publishes the broker refused (no stream takes the subject, the message is too large …): the
 * attempt is spent; back to pending after a backoff, or dead once the attempts are spent
 * (visible to operators, replayable).
 */
export async function markOutboxRejected(
  db: Queryable,
  relayId: string,
  failures: readonly { id: string; error: string; retryInMs: number }[],
  maxAttempts: number,
): Promise<void> {
  if (failures.length === 0) return;
  await db.query({
    name: 'outbox.mark_rejected',
    text: `UPDATE jobs.outbox o
              SET attempt_count = o.attempt_count + 1,
                  status = CASE WHEN o.attempt_count + 1 >= $5 THEN 'dead' ELSE 'pending' END,
                  available_at = now() + f.retry_ms * interval '1 millisecond',
                  last_error = left(f.error, 1000), locked_by = NULL, locked_at = NULL
             FROM unnest($1::bigint[], $2::text[], $3::int[]) AS f(id, error, retry_ms)
            WHERE o.id = f.id AND o.locked_by = $4 AND o.status = 'processing'`,
    values: [failures.map((f) => f.id), failures.map((f) => f.error), failures.map((f) => f.retryInMs), relayId, maxAttempts],
  });
}

/**
 * Publishes that got no answer (the broker is unreachable, restarting, or has no JetStream yet):
 * back to pending at once, with no attempt spent — an outage is waited out, however long.
 */
export async function releaseUnpublishedOutboxRows(db: Queryable, relayId: string, ids: readonly string[], error: string): Promise<void> {
  if (ids.length === 0) return;
  await db.query({
    name: 'outbox.release_unpublished',
    text: `UPDATE jobs.outbox
              SET status = 'pending', last_error = left($3, 1000), locked_by = NULL, locked_at = NULL
            WHERE id = ANY($1::bigint[]) AND locked_by = $2 AND status = 'processing'`,
    values: [ids, relayId, error],
  });
}

/**
 * Rows a relay claimed but never settled (it crashed or hung) go back to pending once their lock
 * is older than lockTimeoutMs, with no attempt spent. Publishing such a row again is harmless:
 * JetStream drops the copy by its Nats-Msg-Id within the duplicate window.
 */
export async function releaseStaleOutboxLocks(db: Queryable, lockTimeoutMs: number): Promise<number> {
  const result = await db.query({
    name: 'outbox.release_stale',
    text: `UPDATE jobs.outbox
              SET status = 'pending',
                  last_error = 'relay ' || locked_by || ' held the row past its lock timeout',
                  locked_by = NULL, locked_at = NULL
            WHERE status = 'processing' AND locked_at < now() - $1::int * interval '1 millisecond'`,
    values: [lockTimeoutMs],
  });
  return result.rowCount ?? 0;
}

/** When the next pending row becomes due (null when none is pending). */
export async function nextOutboxDueAt(db: Queryable): Promise<Date | null> {
  const result = await db.query<{ due: Date | null }>({
    name: 'outbox.next_due',
    text: `SELECT min(available_at) AS due FROM jobs.outbox WHERE status = 'pending'`,
  });
  return result.rows[0]?.due ?? null;
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
 * is never left to an operator. The dead row stays for operators to see. Run it under
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

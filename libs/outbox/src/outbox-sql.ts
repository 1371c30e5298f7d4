import type { Queryable } from '@atelier/db';
import { checkedSchema, outboxChannel } from './outbox-table.js';

/**
 * The SQL of a `<schema>.outbox` table (outbox-table.ts), for the schema given: what a writer runs
 * inside its transaction, then what the relay runs. jobs' relay runs the relay's statements too,
 * on `jobs.outbox` (the same shape, with a trace context a row type of its own adds).
 */

/** A message to publish, as the writer of a fact describes it. */
export interface OutboxEvent {
  /** The job, asset or post it is about. */
  aggregateId: string;
  eventType: string;
  subject: string;
  /** Unique for ever: the Nats-Msg-Id, and a second row with it is not written. */
  dedupeKey: string;
  /** Published as JSON. */
  payload: object;
}

/** A row of `<schema>.outbox`. Ids are bigint, kept as strings. */
export interface OutboxRow {
  id: string;
  aggregate_id: string;
  event_type: string;
  subject: string;
  dedupe_key: string;
  payload: Record<string, unknown>;
  status: 'pending' | 'processing' | 'published' | 'dead';
  attempt_count: number;
  available_at: Date;
  locked_by: string | null;
  locked_at: Date | null;
  last_error: string | null;
  created_at: Date;
  published_at: Date | null;
}

/**
 * Writes the events inside the caller's transaction (pass its client): they commit or roll back
 * with the fact. An event whose dedupe key is already there is not written again. Each written
 * event also asks for a NOTIFY on the schema's channel, which Postgres sends only at the commit
 * (and once per transaction): the relays of every replica wake when there is something to publish,
 * never for a rolled-back write. Answers how many were written.
 */
export async function insertOutboxEvents(db: Queryable, schema: string, events: readonly OutboxEvent[]): Promise<number> {
  if (events.length === 0) return 0;
  const s = checkedSchema(schema);
  const result = await db.query<{ written: number }>({
    name: `${s}.outbox_insert`,
    text: `WITH written AS (
             INSERT INTO ${s}.outbox (aggregate_id, event_type, subject, dedupe_key, payload)
             SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::jsonb[])
             ON CONFLICT (dedupe_key) DO NOTHING
             RETURNING id)
           SELECT count(*)::int AS written FROM written, LATERAL (SELECT pg_notify($6, '')) wake`,
    values: [
      events.map((e) => e.aggregateId),
      events.map((e) => e.eventType),
      events.map((e) => e.subject),
      events.map((e) => e.dedupeKey),
      events.map((e) => JSON.stringify(e.payload)),
      outboxChannel(s),
    ],
  });
  return result.rows[0]?.written ?? 0;
}

/**
 * Claim first, publish after: due pending rows become `processing` under this relay's name, SKIP
 * LOCKED so that relays claim disjoint rows without waiting on each other. No attempt is counted
 * here: only the broker's refusal spends one.
 */
export async function claimDueOutboxRows<Row extends OutboxRow = OutboxRow>(
  db: Queryable,
  schema: string,
  relayId: string,
  limit: number,
): Promise<Row[]> {
  const s = checkedSchema(schema);
  const result = await db.query<Row>({
    name: `${s}.outbox_claim_due`,
    text: `UPDATE ${s}.outbox o
              SET status = 'processing', locked_by = $1, locked_at = now()
            WHERE o.id IN (SELECT id FROM ${s}.outbox
                            WHERE status = 'pending' AND available_at <= now()
                            ORDER BY available_at, id
                            LIMIT $2
                            FOR UPDATE SKIP LOCKED)
           RETURNING o.*`,
    values: [relayId, limit],
  });
  // The statement returns the rows in no particular order: publish them in the order they were written.
  return result.rows.sort((a, b) => a.available_at.getTime() - b.available_at.getTime() || Number(a.id) - Number(b.id));
}

/** The rows this relay still holds become published; a row whose lock expired and moved on is left alone. */
export async function markOutboxPublished(db: Queryable, schema: string, relayId: string, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  const s = checkedSchema(schema);
  await db.query({
    name: `${s}.outbox_mark_published`,
    text: `UPDATE ${s}.outbox SET status = 'published', published_at = now(), locked_by = NULL, locked_at = NULL, last_error = NULL
            WHERE id = ANY($1::bigint[]) AND locked_by = $2 AND status = 'processing'`,
    values: [ids, relayId],
  });
}

/**
 * Publishes the broker refused: the attempt is spent; back to pending after the backoff, or dead
 * once maxAttempts are spent. Answers the rows that went dead.
 */
export async function markOutboxRejected(
  db: Queryable,
  schema: string,
  relayId: string,
  failures: readonly { id: string; error: string; retryInMs: number }[],
  maxAttempts: number,
): Promise<Pick<OutboxRow, 'id' | 'event_type' | 'last_error'>[]> {
  if (failures.length === 0) return [];
  const s = checkedSchema(schema);
  const result = await db.query<Pick<OutboxRow, 'id' | 'event_type' | 'last_error' | 'status'>>({
    name: `${s}.outbox_mark_rejected`,
    text: `UPDATE ${s}.outbox o
              SET attempt_count = o.attempt_count + 1,
                  status = CASE WHEN o.attempt_count + 1 >= $5 THEN 'dead' ELSE 'pending' END,
                  available_at = now() + f.retry_ms * interval '1 millisecond',
                  last_error = left(f.error, 1000), locked_by = NULL, locked_at = NULL
             FROM unnest($1::bigint[], $2::text[], $3::int[]) AS f(id, error, retry_ms)
            WHERE o.id = f.id AND o.locked_by = $4 AND o.status = 'processing'
           RETURNING o.id, o.event_type, o.last_error, o.status`,
    values: [failures.map((f) => f.id), failures.map((f) => f.error), failures.map((f) => f.retryInMs), relayId, maxAttempts],
  });
  return result.rows.filter((row) => row.status === 'dead').map(({ id, event_type, last_error }) => ({ id, event_type, last_error }));
}

/** Publishes that got no answer (the broker is away): back to pending at once, no attempt spent. */
export async function releaseUnpublishedOutboxRows(
  db: Queryable,
  schema: string,
  relayId: string,
  ids: readonly string[],
  error: string,
): Promise<void> {
  if (ids.length === 0) return;
  const s = checkedSchema(schema);
  await db.query({
    name: `${s}.outbox_release_unpublished`,
    text: `UPDATE ${s}.outbox SET status = 'pending', last_error = left($3, 1000), locked_by = NULL, locked_at = NULL
            WHERE id = ANY($1::bigint[]) AND locked_by = $2 AND status = 'processing'`,
    values: [ids, relayId, error],
  });
}

/**
 * Rows a relay claimed but never settled (it crashed or hung) go back to pending once their lock
 * is older than lockTimeoutMs, no attempt spent. Publishing one again is harmless: JetStream drops
 * the copy by its Nats-Msg-Id within the duplicate window, and consumers dedupe by the same id.
 */
export async function releaseStaleOutboxLocks(db: Queryable, schema: string, lockTimeoutMs: number): Promise<number> {
  const s = checkedSchema(schema);
  const result = await db.query({
    name: `${s}.outbox_release_stale`,
    text: `UPDATE ${s}.outbox
              SET status = 'pending', last_error = 'relay ' || locked_by || ' held the row past its lock timeout',
                  locked_by = NULL, locked_at = NULL
            WHERE status = 'processing' AND locked_at < now() - $1::int * interval '1 millisecond'`,
    values: [lockTimeoutMs],
  });
  return result.rowCount ?? 0;
}

/** When the next pending row falls due (null when none is pending). */
export async function nextOutboxDueAt(db: Queryable, schema: string): Promise<Date | null> {
  const s = checkedSchema(schema);
  const result = await db.query<{ due: Date | null }>({
    name: `${s}.outbox_next_due`,
    text: `SELECT min(available_at) AS due FROM ${s}.outbox WHERE status = 'pending'`,
  });
  return result.rows[0]?.due ?? null;
}

/** Deletes up to `limit` rows published longer than retainMs ago; answers how many. */
export async function prunePublishedOutboxRows(db: Queryable, schema: string, retainMs: number, limit: number): Promise<number> {
  const s = checkedSchema(schema);
  const result = await db.query({
    name: `${s}.outbox_prune_published`,
    text: `DELETE FROM ${s}.outbox WHERE id IN (
             SELECT id FROM ${s}.outbox
              WHERE status = 'published' AND published_at < now() - $1::bigint * interval '1 millisecond'
              ORDER BY published_at LIMIT $2)`,
    values: [retainMs, limit],
  });
  return result.rowCount ?? 0;
}

/** What operators watch: rows not published yet, rows given up on, and how long the oldest due one has waited. */
export interface OutboxBacklog {
  /** Rows not published yet (pending or being published). */
  pending: number;
  /** Rows given up on. */
  dead: number;
  oldestPendingAgeMs: number;
}

/** Reads `<schema>.outbox`'s backlog in one statement. */
export async function outboxBacklog(db: Queryable, schema: string): Promise<OutboxBacklog> {
  const s = checkedSchema(schema);
  const result = await db.query<{ pending: number; dead: number; oldest_pending_age_ms: number }>({
    name: `${s}.outbox_backlog`,
    text: `SELECT count(*) FILTER (WHERE status IN ('pending', 'processing'))::int AS pending,
                  count(*) FILTER (WHERE status = 'dead')::int AS dead,
                  coalesce(extract(epoch FROM now() - min(available_at) FILTER (WHERE status = 'pending' AND available_at <= now())) * 1000, 0)::float8
                    AS oldest_pending_age_ms
             FROM ${s}.outbox WHERE status <> 'published'`,
  });
  const row = result.rows[0]!;
  return { pending: row.pending, dead: row.dead, oldestPendingAgeMs: row.oldest_pending_age_ms };
}

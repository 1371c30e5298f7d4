import type { Queryable } from '@atelier/db';

/**
 * The retention statements (background/retention-pruner.ts). Each is one short transaction that deletes at
 * most `limit` rows, walking its table in age order from a cursor, so a run is a series of small
 * deletes that never holds many locks for long. One pruner runs at a time across replicas (the
 * session lock below). The outbox delete skips rows someone holds (SKIP LOCKED), leaving them to
 * the next run rather than waiting; the events of ended jobs are never written again, so nothing
 * else locks them.
 */

const RETENTION_LOCK = `hashtext('atelier.jobs.retention')`;

/** Takes the replicas' retention lock for this session, or answers false (another replica prunes). */
export async function tryLockRetention(db: Queryable): Promise<boolean> {
  const { rows } = await db.query<{ locked: boolean }>(`SELECT pg_try_advisory_lock(${RETENTION_LOCK}) AS locked`);
  return rows[0]!.locked;
}

export async function unlockRetention(db: Queryable): Promise<void> {
  await db.query(`SELECT pg_advisory_unlock(${RETENTION_LOCK})`);
}

/**
 * Deletes published outbox rows older than olderThanMs, oldest first, from publishedFrom on (the
 * cursor: where the previous batch of the run stopped, so no batch walks again over what the
 * earlier ones deleted). Pending, processing and dead rows are never touched: only `published`
 * rows are history. Answers how many went and the newest published_at among them.
 */
export async function prunePublishedOutbox(
  db: Queryable,
  olderThanMs: number,
  limit: number,
  publishedFrom: Date | null,
): Promise<{ deleted: number; reached: Date | null }> {
  const { rows } = await db.query<{ deleted: number; reached: Date | null }>({
    name: 'retention.prune_outbox',
    text: `WITH gone AS (
             DELETE FROM jobs.outbox WHERE id IN (
               SELECT id FROM jobs.outbox
                WHERE status = 'published'
                  AND published_at < now() - make_interval(secs => $1::double precision / 1000)
                  AND published_at >= coalesce($3::timestamptz, '-infinity')
                ORDER BY published_at
                LIMIT $2
                FOR UPDATE SKIP LOCKED)
             RETURNING published_at)
           SELECT count(*)::int AS deleted, max(published_at) AS reached FROM gone`,
    values: [olderThanMs, limit, publishedFrom],
  });
  return rows[0]!;
}

export interface EventsBatch {
  /** job_events rows deleted (never more than the limit). */
  deleted: number;
  /** Jobs whose events went, each leaving its history in jobs.job_histories. */
  archived: number;
  /** Where the next batch of this run starts (an event id), or null when the run is done. */
  next: string | null;
}

/**
 * Prunes the job_events of jobs terminal for longer than olderThanDays, archiving each job's
 * history first, in one statement: the job's transitions as its view reads them go to
 * jobs.job_histories in the same transaction as its events go, so a reader finds one or the
 * other (one statement, one snapshot). Terminal jobs never change (the transition trigger), so
 * their events cannot grow meanwhile.
 *
 * A batch looks at the next `limit` events after the cursor (event ids follow time), takes the
 * due jobs among them, oldest first, while their events — all of them, before the cursor or after
 * — add up to at most `limit`, and deletes those. A due job left out for size is the next batch's
 * start. The run ends at an empty window or one that holds no event older than the cutoff: a later
 * event belongs to a job that ended after it. A job with more events than `limit` is passed over
 * (kept whole): no batch may delete more. There is no ON CONFLICT on the archive: a job with a
 * history and events both would be a bug, and the batch fails rather than lose either.
 */
export async function pruneJobEvents(db: Queryable, olderThanDays: number, limit: number, afterId: string): Promise<EventsBatch> {
  const { rows } = await db.query<{
    deleted: number;
    archived: number;
    scanned_to: string | null;
    deferred_from: string | null;
    window_is_recent: boolean | null;
  }>({
    name: 'retention.prune_job_events',
    text: `WITH scanned AS (
             SELECT e.id, e.job_id, e.occurred_at FROM jobs.job_events e
              WHERE e.id > $3::bigint ORDER BY e.id LIMIT $2),
           due AS (
             SELECT s.job_id, min(s.id) AS first_id
               FROM scanned s JOIN jobs.generation_jobs j ON j.id = s.job_id
              WHERE j.status IN ('succeeded', 'failed', 'cancelled')
                AND j.completed_at < now() - make_interval(days => $1::int)
              GROUP BY s.job_id),
           fitting AS (
             SELECT d.job_id, d.first_id, sum(c.events) OVER (ORDER BY d.first_id) AS upto
               FROM due d CROSS JOIN LATERAL (SELECT count(*) AS events FROM jobs.job_events x WHERE x.job_id = d.job_id) c
              WHERE c.events <= $2),
           chosen AS (SELECT job_id FROM fitting WHERE upto <= $2),
           archived AS (
             INSERT INTO jobs.job_histories (job_id, history)
             SELECT e.job_id, jsonb_agg(jsonb_build_array(e.from_status, e.to_status, e.attempt, e.error_code,
                                                         extract(epoch FROM e.occurred_at) * 1000) ORDER BY e.id)
               FROM jobs.job_events e WHERE e.job_id IN (SELECT job_id FROM chosen)
              GROUP BY e.job_id
             RETURNING job_id),
           gone AS (
             DELETE FROM jobs.job_events e WHERE e.job_id IN (SELECT job_id FROM chosen) RETURNING e.id)
           SELECT (SELECT count(*)::int FROM gone) AS deleted,
                  (SELECT count(*)::int FROM archived) AS archived,
                  (SELECT max(id)::text FROM scanned) AS scanned_to,
                  (SELECT min(first_id)::text FROM fitting WHERE upto > $2) AS deferred_from,
                  (SELECT min(occurred_at) >= now() - make_interval(days => $1::int) FROM scanned) AS window_is_recent`,
    values: [olderThanDays, limit, afterId],
  });
  const row = rows[0]!;
  let next: string | null;
  // A job left out for size had its first event in this window: the next batch starts there
  // (the jobs before it are gone). Otherwise on after the window, unless it was all recent.
  if (row.deferred_from !== null) next = (BigInt(row.deferred_from) - 1n).toString();
  else if (row.scanned_to === null || row.window_is_recent) next = null;
  else next = row.scanned_to;
  return { deleted: row.deleted, archived: row.archived, next };
}

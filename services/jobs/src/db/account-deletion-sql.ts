import { lockAllForTransaction, type Queryable } from '@atelier/db';

/** A row of jobs.account_deletions. */
export interface AccountDeletionRow {
  user_id: string;
  deletion_id: string;
  requested_at: Date;
  jobs_completed_at: Date | null;
  jobs_removed: number;
}

/** The lock scope CreateJob's quota check takes per user (db/transitions/create-sql.ts). */
const USER_LOCK_SCOPE = 'jobs.quota';

/**
 * Records the request and its AccountDeletedEvent (events.proto, proto3 JSON) in the outbox, in
 * the caller's transaction; a repeat finds the first request (created false) and writes nothing.
 * Under the user's create lock: a create that committed before is seen by the deletion's sweep,
 * one that comes after sees this row and is refused (the create statement checks it under the
 * same lock).
 */
export async function insertAccountDeletion(
  db: Queryable,
  request: { userId: string; deletionId: string; subject: string },
): Promise<AccountDeletionRow & { created: boolean }> {
  await lockAllForTransaction(db, USER_LOCK_SCOPE, [request.userId]);
  const { rows } = await db.query<AccountDeletionRow & { created: boolean }>({
    name: 'jobs.insert_account_deletion',
    text: `WITH requested AS (
             INSERT INTO jobs.account_deletions (user_id, deletion_id) VALUES ($1, $2)
             ON CONFLICT (user_id) DO NOTHING
             RETURNING *),
           event AS (
             INSERT INTO jobs.outbox (aggregate_id, event_type, subject, dedupe_key, payload)
             SELECT r.deletion_id, 'account.deleted', $3, 'account-deleted:' || r.deletion_id,
                    jsonb_build_object('deletionId', r.deletion_id, 'userId', r.user_id,
                                       'requestedAt', to_char(r.requested_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
               FROM requested r)
           SELECT r.*, true AS created FROM requested r
           UNION ALL
           SELECT d.*, false FROM jobs.account_deletions d WHERE d.user_id = $1 AND NOT EXISTS (SELECT 1 FROM requested)`,
    values: [request.userId, request.deletionId, request.subject],
  });
  return rows[0]!;
}

export async function selectAccountDeletion(db: Queryable, userId: string): Promise<AccountDeletionRow | undefined> {
  const { rows } = await db.query<AccountDeletionRow>({
    name: 'jobs.select_account_deletion',
    text: `SELECT * FROM jobs.account_deletions WHERE user_id = $1`,
    values: [userId],
  });
  return rows[0];
}

/** The user's queued and running jobs (the deletion cancels each through the cancel transition). */
export async function selectInFlightJobIdsOfUser(db: Queryable, userId: string, limit: number): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>({
    name: 'jobs.select_in_flight_jobs_of_user',
    text: `SELECT id FROM jobs.generation_jobs WHERE user_id = $1 AND status IN ('queued', 'running') ORDER BY id LIMIT $2`,
    values: [userId, limit],
  });
  return rows.map((row) => row.id);
}

/**
 * Deletes up to `limit` of the user's finished jobs (their events and histories go with them,
 * ON DELETE CASCADE) and counts them on the deletion row. Jobs in flight are left for the cancel
 * step (a terminal job cannot change, and deleting a running one would leave its prediction
 * uncancelled). Answers how many it deleted: 0 when none is left.
 */
export async function deleteFinishedJobsOfUser(db: Queryable, userId: string, limit: number): Promise<number> {
  const { rows } = await db.query<{ removed: number }>({
    name: 'jobs.delete_finished_jobs_of_user',
    text: `WITH doomed AS (
             SELECT id FROM jobs.generation_jobs
              WHERE user_id = $1 AND status IN ('succeeded', 'failed', 'cancelled')
              ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED),
           removed AS (
             DELETE FROM jobs.generation_jobs j USING doomed WHERE j.id = doomed.id RETURNING j.id),
           counted AS (
             UPDATE jobs.account_deletions SET jobs_removed = jobs_removed + (SELECT count(*) FROM removed)
              WHERE user_id = $1)
           SELECT count(*)::int AS removed FROM removed`,
    values: [userId, limit],
  });
  return rows[0]!.removed;
}

/** The jobs part is done once nothing of the user is left; answers false while jobs remain. */
export async function markJobsPartCompleted(db: Queryable, userId: string): Promise<boolean> {
  const { rowCount } = await db.query({
    name: 'jobs.mark_account_deletion_jobs_completed',
    text: `UPDATE jobs.account_deletions SET jobs_completed_at = coalesce(jobs_completed_at, now())
            WHERE user_id = $1 AND NOT EXISTS (SELECT 1 FROM jobs.generation_jobs WHERE user_id = $1)`,
    values: [userId],
  });
  return (rowCount ?? 0) > 0;
}

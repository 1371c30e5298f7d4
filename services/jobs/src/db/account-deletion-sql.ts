import { accountDeletionRequestsTable, rowsOfUser } from '@atelier/account-deletion';
import { lockAllForTransaction, type Queryable } from '@atelier/db';
import { rfc3339Sql } from '@atelier/outbox';

/**
 * jobs.account_deletions: one row per user whose account's deletion was requested, and the jobs
 * part's progress (jobs_completed_at, jobs_removed).
 */
export const JOBS_ACCOUNT_DELETIONS = accountDeletionRequestsTable('jobs', 'jobs');

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
 * Records the request and its AccountDeletedEvent (events.proto, proto3 JSON, which the consumers
 * decode with @atelier/account-deletion's decodeAccountDeleted) in the outbox, in the caller's
 * transaction; a repeat finds the first request (created false) and writes nothing.
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
                    jsonb_build_object('deletionId', r.deletion_id, 'userId', r.user_id, 'requestedAt', ${rfc3339Sql('r.requested_at')})
               FROM requested r)
           SELECT r.*, true AS created FROM requested r
           UNION ALL
           SELECT d.*, false FROM jobs.account_deletions d WHERE d.user_id = $1 AND NOT EXISTS (SELECT 1 FROM requested)`,
    values: [request.userId, request.deletionId, request.subject],
  });
  return rows[0]!;
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
 * The user's jobs (their events and histories go with them, ON DELETE CASCADE), finished ones
 * only: jobs in flight are left for the cancel step (a terminal job cannot change, and deleting a
 * running one would leave its prediction uncancelled), and remain until it has run.
 */
export const JOBS_OF_USER = rowsOfUser({
  table: 'jobs.generation_jobs',
  userColumn: 'user_id',
  deletable: `status IN ('succeeded', 'failed', 'cancelled')`,
});

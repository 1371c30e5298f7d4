import { lockForTransaction, type Queryable } from '@atelier/db';
import type { UploadUsage } from '../domain/upload-limits.js';

/**
 * Serialises one user's upload starts until the transaction ends. Counting and inserting under
 * this lock is what keeps concurrent CreateUploads from overshooting a limit: the second waits
 * here until the first committed its row, then counts it (as jobs' quota does).
 */
export async function lockOwnerForUploads(db: Queryable, ownerUserId: string): Promise<void> {
  await lockForTransaction(db, 'media.uploads', ownerUserId);
}

/**
 * The user's usage, read under lockOwnerForUploads. Uploads started today count the user's own
 * purposes only (ai_output is written by the server for a job, limited by the jobs quota); stored
 * bytes count every live asset the user owns. Both ride assets_owner_created_idx.
 */
/**
 * Whether a row counts towards the user's uploads started today: the one place that rule is
 * written, read by selectUploadUsage and by the owner delete (owner-delete-sql.ts), which must
 * keep such a row as a tombstone until the day ends so that a delete cannot refund an upload.
 */
export const COUNTS_AS_UPLOAD_TODAY = `(purpose <> 'ai_output'
                                     AND created_at >= date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')`;

export async function selectUploadUsage(db: Queryable, ownerUserId: string): Promise<UploadUsage> {
  const result = await db.query<{ started_today: string; stored_bytes: string }>({
    name: 'media.upload_usage',
    text: `SELECT count(*) FILTER (WHERE ${COUNTS_AS_UPLOAD_TODAY}) AS started_today,
                  coalesce(sum(size_bytes) FILTER (WHERE status <> 'deleted'), 0) AS stored_bytes
             FROM media.assets
            WHERE owner_user_id = $1`,
    values: [ownerUserId],
  });
  const row = result.rows[0]!;
  return { startedToday: Number(row.started_today), storedBytes: Number(row.stored_bytes) };
}

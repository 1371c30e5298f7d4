import type { Queryable } from '@atelier/db';
import { lockOwnerForUploads } from './upload-usage-sql.js';

export interface MediaAccountDeletionRow {
  user_id: string;
  deletion_id: string;
  started_at: Date;
  completed_at: Date | null;
  removed: number;
}

/**
 * Media starts its part: the row, under the user's upload lock, so that an upload or server asset
 * counted before it is seen by the sweep and every one after is refused (they check the row
 * under the same lock: accountDeletionStarted). Idempotent.
 */
export async function insertMediaAccountDeletion(db: Queryable, userId: string, deletionId: string): Promise<MediaAccountDeletionRow> {
  await lockOwnerForUploads(db, userId);
  const { rows } = await db.query<MediaAccountDeletionRow>({
    name: 'media.insert_account_deletion',
    text: `INSERT INTO media.account_deletions (user_id, deletion_id) VALUES ($1, $2)
           ON CONFLICT (user_id) DO UPDATE SET user_id = EXCLUDED.user_id
           RETURNING *`,
    values: [userId, deletionId],
  });
  return rows[0]!;
}

export async function selectMediaAccountDeletion(db: Queryable, userId: string): Promise<MediaAccountDeletionRow | undefined> {
  const { rows } = await db.query<MediaAccountDeletionRow>({
    name: 'media.select_account_deletion',
    text: `SELECT * FROM media.account_deletions WHERE user_id = $1`,
    values: [userId],
  });
  return rows[0];
}

/** Whether the user's account is being (or was) deleted; read under lockOwnerForUploads before an insert. */
export async function accountDeletionStarted(db: Queryable, userId: string): Promise<boolean> {
  return (await selectMediaAccountDeletion(db, userId)) !== undefined;
}

/**
 * Up to `limit` of the user's assets that can go now, locked: every one but an upload whose
 * presigned PUT is still valid (its bytes may still land; it is taken once the URL expired).
 */
export async function lockDeletableAssetsOfOwner(
  db: Queryable,
  userId: string,
  uploadUrlTtlSeconds: number,
  limit: number,
): Promise<{ id: string; storage_key: string }[]> {
  const { rows } = await db.query<{ id: string; storage_key: string }>({
    name: 'media.lock_deletable_assets_of_owner',
    text: `SELECT id, storage_key FROM media.assets
            WHERE owner_user_id = $1
              AND NOT (status = 'uploading' AND created_at > now() - $2 * interval '1 second')
            ORDER BY id LIMIT $3
              FOR UPDATE SKIP LOCKED`,
    values: [userId, uploadUrlTtlSeconds, limit],
  });
  return rows;
}

/** Deletes the rows (their objects are gone already) and counts them on the deletion. */
export async function deleteAssetRowsOfOwner(db: Queryable, userId: string, ids: readonly string[]): Promise<void> {
  await db.query({
    name: 'media.delete_asset_rows_of_owner',
    text: `WITH removed AS (DELETE FROM media.assets WHERE owner_user_id = $1 AND id = ANY($2::uuid[]) RETURNING id)
           UPDATE media.account_deletions SET removed = removed + (SELECT count(*) FROM removed) WHERE user_id = $1`,
    values: [userId, ids],
  });
}

/** Done once no asset of the user is left; answers false while some remain (uploads still open). */
export async function markMediaPartCompleted(db: Queryable, userId: string): Promise<boolean> {
  const { rowCount } = await db.query({
    name: 'media.mark_account_deletion_completed',
    text: `UPDATE media.account_deletions SET completed_at = coalesce(completed_at, now())
            WHERE user_id = $1 AND NOT EXISTS (SELECT 1 FROM media.assets WHERE owner_user_id = $1)`,
    values: [userId],
  });
  return (rowCount ?? 0) > 0;
}

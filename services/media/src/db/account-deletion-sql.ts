import { accountDeletionsTable, rowsOfUser } from '@atelier/account-deletion';
import type { Queryable } from '@atelier/db';

/** media.account_deletions: media's part of deleting a user's account (assets removed, when done). */
export const MEDIA_ACCOUNT_DELETIONS = accountDeletionsTable('media');

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

/** Deletes the rows (their objects are gone already). */
export async function deleteAssetRowsOfOwner(db: Queryable, userId: string, ids: readonly string[]): Promise<void> {
  await db.query({
    name: 'media.delete_asset_rows_of_owner',
    text: `DELETE FROM media.assets WHERE owner_user_id = $1 AND id = ANY($2::uuid[])`,
    values: [userId, ids],
  });
}

/** Finds an asset of the user ($1) while one is left. */
export const ASSET_OF_OWNER_SQL = rowsOfUser({ table: 'media.assets', userColumn: 'owner_user_id' }).remainingSql;

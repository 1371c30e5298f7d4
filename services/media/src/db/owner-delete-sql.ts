import type { Queryable } from '@atelier/db';
import type { StoredPurpose } from '../domain/asset-rules.js';
import { toAsset, type Asset, type AssetRow } from './asset-sql.js';
import { COUNTS_AS_UPLOAD_TODAY } from './upload-usage-sql.js';

/*
 * The owner's delete (rpc/delete-own-asset.ts) in three steps, each a CAS on the status so that
 * concurrent deletes, a CompleteUpload and a CreateJob's input check meet in one row:
 *
 *   1. markAssetDeleting   uploading | ready | deleting → deleting
 *   2a. restoreDeletingAsset deleting → ready (or uploading), when something still uses it
 *   2b. removeDeletingAsset deleting → gone: the row removed (or kept as a tombstone, see there)
 *
 * While `deleting`, the asset is neither `ready` for a new job or post (jobs and community read
 * its status through GetAsset(s)Internal and refuse it) nor completable (updateAssetReady wants
 * `uploading`), so once step 1 committed, only uses that were checked before it can appear —
 * which is what the peers are asked about between steps 1 and 2.
 */

/**
 * Step 1, for the owner only. `deleting` is accepted again, so a delete cut short (a crash, a
 * timeout) is finished by asking once more. Null: not the owner's, gone, already deleted, or —
 * with `purpose` — of another purpose (retention deletes input images only).
 */
export async function markAssetDeleting(db: Queryable, id: string, ownerUserId: string, purpose?: StoredPurpose): Promise<Asset | null> {
  const result = await db.query<AssetRow>({
    name: 'media.mark_deleting',
    text: `UPDATE media.assets SET status = 'deleting'
            WHERE id = $1 AND owner_user_id = $2 AND status IN ('uploading', 'ready', 'deleting')
              AND ($3::text IS NULL OR purpose = $3)
            RETURNING *`,
    values: [id, ownerUserId, purpose ?? null],
  });
  return toAsset(result.rows[0]);
}

/**
 * Step 2a: back to what it was — ready when it had been completed (ready_at is kept through
 * `deleting`), uploading otherwise. A second delete that meanwhile removed the asset finds no row.
 */
export async function restoreDeletingAsset(db: Queryable, id: string): Promise<void> {
  await db.query({
    name: 'media.restore_deleting',
    text: `UPDATE media.assets SET status = CASE WHEN ready_at IS NULL THEN 'uploading' ELSE 'ready' END
            WHERE id = $1 AND status = 'deleting'`,
    values: [id],
  });
}

/**
 * Step 2b, once the objects are gone. The row goes — except a user upload started today, which
 * counts towards the daily upload limit until the day ends (COUNTS_AS_UPLOAD_TODAY): removing it
 * would let delete-and-upload-again evade the limit, so it stays as a `deleted` tombstone with its
 * hash and dimensions cleared, invisible to every read as any deleted asset is. The two
 * statements' conditions exclude each other, so exactly one of them applies to a `deleting` row.
 */
export async function removeDeletingAsset(db: Queryable, id: string): Promise<void> {
  await db.query({
    name: 'media.remove_deleting',
    text: `DELETE FROM media.assets WHERE id = $1 AND status = 'deleting' AND NOT ${COUNTS_AS_UPLOAD_TODAY}`,
    values: [id],
  });
  await db.query({
    name: 'media.tombstone_deleting',
    text: `UPDATE media.assets SET status = 'deleted', deleted_at = now(), sha256 = NULL, width = NULL, height = NULL
            WHERE id = $1 AND status = 'deleting' AND ${COUNTS_AS_UPLOAD_TODAY}`,
    values: [id],
  });
}

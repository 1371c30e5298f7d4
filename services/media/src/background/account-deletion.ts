import { accountDeletionOf } from '@atelier/account-deletion';
import type { Queryable, SqlPool } from '@atelier/db';
import type { Logger } from '@atelier/logging';
import {
  ASSET_OF_OWNER_SQL,
  deleteAssetRowsOfOwner,
  lockDeletableAssetsOfOwner,
  MEDIA_ACCOUNT_DELETIONS,
} from '../db/account-deletion-sql.js';
import { lockOwnerForUploads } from '../db/upload-usage-sql.js';
import type { ObjectStore } from '../storage/object-store.js';

/**
 * Media's part of deleting an account, run by its AccountDeletionConsumer: from the first step on
 * the user's uploads and server assets are refused (under the upload lock they take); then every
 * asset goes, its object first and then its row, a batch per transaction (a failed object delete
 * rolls the batch back and the event comes again). An upload whose presigned PUT is still valid
 * is waited for: its bytes could land after the sweep, so the part completes once the URL has
 * expired (UPLOAD_URL_TTL_SECONDS).
 */
export function mediaAccountDeletion(context: { pool: SqlPool; store: ObjectStore; uploadUrlTtlSeconds: number; logger: Logger }) {
  const deleteAssets = async (db: Queryable, userId: string, limit: number): Promise<number> => {
    const assets = await lockDeletableAssetsOfOwner(db, userId, context.uploadUrlTtlSeconds, limit);
    if (assets.length === 0) return 0;
    await context.store.deleteMany(assets.map((asset) => asset.storage_key));
    await deleteAssetRowsOfOwner(
      db,
      userId,
      assets.map((asset) => asset.id),
    );
    return assets.length;
  };
  return accountDeletionOf(
    {
      service: 'media',
      table: MEDIA_ACCOUNT_DELETIONS,
      lockUser: lockOwnerForUploads,
      deleteBatch: deleteAssets,
      batchSize: 100,
      remainingSql: ASSET_OF_OWNER_SQL,
      remains: 'uploads of the account are still open (their presigned URLs have not expired)',
    },
    context,
  );
}

import { inTransaction, type SqlPool } from '@atelier/db';
import type { AccountDeleted } from '@atelier/nats';
import {
  deleteAssetRowsOfOwner,
  insertMediaAccountDeletion,
  lockDeletableAssetsOfOwner,
  markMediaPartCompleted,
} from '../db/account-deletion-sql.js';
import type { ObjectStore } from '../storage/object-store.js';

const BATCH = 100;

/**
 * Media's part of deleting an account, run by its AccountDeletionConsumer: from the first step on
 * the user's uploads and server assets are refused; then every asset goes, its object first and
 * then its row, a batch per transaction (a failed object delete rolls the batch back and the event
 * comes again). An upload whose presigned PUT is still valid is waited for: its bytes could land
 * after the sweep, so the part completes once the URL has expired (UPLOAD_URL_TTL_SECONDS).
 */
export function mediaAccountDeletion(context: { pool: SqlPool; store: ObjectStore; uploadUrlTtlSeconds: number }) {
  return async (event: AccountDeleted): Promise<void> => {
    const { pool, store } = context;
    const started = await inTransaction(pool, (client) => insertMediaAccountDeletion(client, event.userId, event.deletionId));
    if (started.completed_at) return;
    for (;;) {
      const deleted = await inTransaction(pool, async (client) => {
        const assets = await lockDeletableAssetsOfOwner(client, event.userId, context.uploadUrlTtlSeconds, BATCH);
        if (assets.length === 0) return 0;
        await store.deleteMany(assets.map((asset) => asset.storage_key));
        await deleteAssetRowsOfOwner(
          client,
          event.userId,
          assets.map((asset) => asset.id),
        );
        return assets.length;
      });
      if (deleted === 0) break;
    }
    if (!(await markMediaPartCompleted(pool, event.userId))) throw new Error('uploads of the account are still open; deleting again later');
  };
}

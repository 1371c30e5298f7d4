import { inTransaction, type SqlPool } from '@atelier/db';
import { startPeriodicTask, sweepInBatches } from '@atelier/lifecycle';
import type { Logger } from '@atelier/logging';
import { deleteUploadingRows, lockStaleUploads, verifiedPrefixFor } from '../db/asset-sql.js';
import type { ObjectStore } from '../storage/object-store.js';

/**
 * Removes uploads nobody completed within maxAgeMs: their objects, then their rows, in one
 * transaction per batch. Rows are claimed with FOR UPDATE SKIP LOCKED, so any number of
 * replicas can sweep at once without two touching the same row; if the object store fails, the
 * transaction rolls back and the rows wait for the next sweep (never a row without its object
 * deleted first, never an object deleted twice in a way that matters: S3 deletes are idempotent).
 */
export async function sweepStaleUploads(pool: SqlPool, store: ObjectStore, maxAgeMs: number, batchSize = 100): Promise<number> {
  return sweepInBatches(async () => {
    const count = await inTransaction(pool, async (client) => {
      const rows = await lockStaleUploads(client, maxAgeMs, batchSize);
      if (rows.length === 0) return 0;
      await store.deleteMany(rows.map((row) => row.storage_key));
      // A completion that died between its copy and marking the row ready left a copy behind.
      for (const row of rows) await store.deletePrefix(verifiedPrefixFor(row.id));
      await deleteUploadingRows(
        client,
        rows.map((row) => row.id),
      );
      return rows.length;
    });
    return { count, next: count < batchSize ? null : true };
  });
}

/** Sweeps every intervalMs until stopped; a failed sweep is logged and retried next time. */
export function startUploadSweeper(options: {
  pool: SqlPool;
  store: ObjectStore;
  logger: Logger;
  maxAgeMs: number;
  intervalMs: number;
}): () => Promise<void> {
  const task = startPeriodicTask({
    name: 'upload sweep',
    intervalMs: options.intervalMs,
    logger: options.logger,
    run: async () => {
      const swept = await sweepStaleUploads(options.pool, options.store, options.maxAgeMs);
      if (swept > 0) options.logger.info({ swept }, 'stale uploads removed');
    },
  });
  return () => task.stop();
}

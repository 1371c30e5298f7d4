import type { MikroORM } from '@atelier/db';
import type { Logger } from '@atelier/logging';
import type { ObjectStore } from './storage/object-store.js';

/**
 * Removes uploads nobody completed within maxAgeMs: their objects, then their rows, in one
 * transaction per batch. Rows are claimed with FOR UPDATE SKIP LOCKED, so any number of
 * replicas can sweep at once without two touching the same row; if the object store fails, the
 * transaction rolls back and the rows wait for the next sweep (never a row without its object
 * deleted first, never an object deleted twice in a way that matters: S3 deletes are idempotent).
 */
export async function sweepStaleUploads(orm: MikroORM, store: ObjectStore, maxAgeMs: number, batchSize = 100): Promise<number> {
  let swept = 0;
  for (;;) {
    const count = await orm.em.fork().transactional(async (em) => {
      const rows = await em.execute<{ id: string; storage_key: string }[]>(
        `SELECT id, storage_key FROM media.assets
          WHERE status = 'uploading' AND created_at < now() - make_interval(secs => ?)
          ORDER BY created_at
          LIMIT ?
          FOR UPDATE SKIP LOCKED`,
        [maxAgeMs / 1000, batchSize],
      );
      if (rows.length === 0) return 0;
      await store.deleteMany(rows.map((row) => row.storage_key));
      await em.execute(
        `DELETE FROM media.assets WHERE id IN (${rows.map(() => '?').join(', ')}) AND status = 'uploading'`,
        rows.map((row) => row.id),
      );
      return rows.length;
    });
    swept += count;
    if (count < batchSize) return swept;
  }
}

/** Sweeps every intervalMs until stopped; a failed sweep is logged and retried next time. */
export function startUploadSweeper(options: {
  orm: MikroORM;
  store: ObjectStore;
  logger: Logger;
  maxAgeMs: number;
  intervalMs: number;
}): () => Promise<void> {
  let running: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    running = sweepStaleUploads(options.orm, options.store, options.maxAgeMs).then(
      (swept) => {
        if (swept > 0) options.logger.info({ swept }, 'stale uploads removed');
      },
      (error: unknown) => options.logger.warn({ err: error }, 'upload sweep failed; retrying at the next interval'),
    );
  }, options.intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}

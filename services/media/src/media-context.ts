import type { SqlPool } from '@atelier/db';
import type { Logger } from '@atelier/logging';
import type { ProductEvents } from '@atelier/outbox';
import type { UploadLimits } from './domain/upload-limits.js';
import type { AssetUsage } from './peers/asset-usage.js';
import type { ObjectStore } from './storage/object-store.js';

/** What the media RPC handlers depend on. */
export interface MediaContext {
  pool: SqlPool;
  store: ObjectStore;
  logger: Logger;
  /** The product events media writes to its outbox (creation_upload_completed). */
  productEvents: ProductEvents;
  uploadUrlTtlSeconds: number;
  downloadUrlTtlSeconds: number;
  /** Per-user limits of CreateUpload; DEFAULT_UPLOAD_LIMITS when absent. */
  uploadLimits?: UploadLimits;
  /** CompleteUpload checks running at once in this process (UPLOAD_COMPLETIONS_MAX); default 4. */
  uploadCompletionsMax?: number;
  /** Who still uses an asset (jobs, community), for the owner's delete; without it DeleteOwnAsset is UNAVAILABLE. */
  assetUsage?: AssetUsage;
}

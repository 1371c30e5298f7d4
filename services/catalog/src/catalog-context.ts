import type { SqlPool } from '@atelier/db';
import type { AnnounceChange } from './peers/change-notices.js';
import type { PreviewAssets } from './peers/preview-assets.js';

/** What the catalog's RPC handlers depend on. */
export interface CatalogContext {
  pool: SqlPool;
  /** Called once a write to a model or style has committed. */
  announceChange: AnnounceChange;
  /** Media, for style previews: checked at write, linked for GetStylePreview. */
  previews: PreviewAssets;
}

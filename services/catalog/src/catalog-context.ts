import type { SqlPool } from '@atelier/db';

/** What the catalog's RPC handlers depend on. */
export interface CatalogContext {
  pool: SqlPool;
}

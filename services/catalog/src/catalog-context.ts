import type { MikroORM } from '@atelier/db';

/** What the catalog's RPC handlers depend on. Each call forks its own EntityManager from it. */
export interface CatalogContext {
  orm: MikroORM;
}

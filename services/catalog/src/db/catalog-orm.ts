import { createOrm, migrate, type MikroORM } from '@atelier/db';
import { ModelEntity, StyleEntity } from './entities.js';
import { catalogMigrations } from './migrations/index.js';

export const CATALOG_SCHEMA = 'catalog';

export function createCatalogOrm(databaseUrl: string, poolMax?: number): Promise<MikroORM> {
  return createOrm({
    databaseUrl,
    schema: CATALOG_SCHEMA,
    entities: [ModelEntity, StyleEntity],
    migrations: catalogMigrations,
    poolMax,
  });
}

/** Applies pending catalog migrations; returns the names it ran. */
export function migrateCatalog(orm: MikroORM, databaseUrl: string): Promise<string[]> {
  return migrate(orm, databaseUrl, CATALOG_SCHEMA);
}

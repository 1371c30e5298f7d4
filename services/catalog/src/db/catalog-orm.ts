import { createOrm, migrate, type MikroORM } from '@atelier/orm';
import { catalogEntities } from './entities/index.js';
import { CATALOG_SCHEMA, catalogMigrations } from './migrations/index.js';

export { CATALOG_SCHEMA };

/**
 * MikroORM owns the catalog schema's configuration, migrations and entities (its description in
 * code, checked against the migrations); the service's SQL runs on pg.
 */
export function createCatalogOrm(databaseUrl: string, poolMax?: number): Promise<MikroORM> {
  return createOrm({
    databaseUrl,
    schema: CATALOG_SCHEMA,
    entities: catalogEntities,
    migrations: catalogMigrations,
    poolMax,
  });
}

/** Applies pending catalog migrations; returns the names it ran. */
export function migrateCatalog(orm: MikroORM, databaseUrl: string): Promise<string[]> {
  return migrate(orm, databaseUrl, CATALOG_SCHEMA);
}

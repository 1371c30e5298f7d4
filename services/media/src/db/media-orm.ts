import { createOrm, migrate, type MikroORM } from '@atelier/orm';
import { mediaEntities } from './entities/index.js';
import { MEDIA_SCHEMA, mediaMigrations } from './migrations/index.js';

export { MEDIA_SCHEMA };

/**
 * MikroORM owns the media schema's configuration, migrations and entities (its description in
 * code, checked against the migrations); the service's SQL runs on pg.
 */
export function createMediaOrm(databaseUrl: string, poolMax?: number): Promise<MikroORM> {
  return createOrm({ databaseUrl, schema: MEDIA_SCHEMA, entities: mediaEntities, migrations: mediaMigrations, poolMax });
}

export function migrateMedia(orm: MikroORM, databaseUrl: string): Promise<string[]> {
  return migrate(orm, databaseUrl, MEDIA_SCHEMA);
}

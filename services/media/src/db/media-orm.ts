import { createOrm, migrate, type MikroORM } from '@atelier/db';
import { AssetEntity } from './entities.js';
import { mediaMigrations } from './migrations/index.js';

export const MEDIA_SCHEMA = 'media';

export function createMediaOrm(databaseUrl: string, poolMax?: number): Promise<MikroORM> {
  return createOrm({ databaseUrl, schema: MEDIA_SCHEMA, entities: [AssetEntity], migrations: mediaMigrations, poolMax });
}

export function migrateMedia(orm: MikroORM, databaseUrl: string): Promise<string[]> {
  return migrate(orm, databaseUrl, MEDIA_SCHEMA);
}

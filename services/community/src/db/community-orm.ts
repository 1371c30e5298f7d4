import { createOrm, migrate, type MikroORM } from '@atelier/orm';
import { communityEntities } from './entities/index.js';
import { COMMUNITY_SCHEMA, communityMigrations } from './migrations/index.js';

export { COMMUNITY_SCHEMA };

/**
 * MikroORM owns the community schema's configuration, migrations and entities (its description in
 * code, checked against the migrations). The service's own SQL runs
 * on a plain pg pool (see @atelier/db createSqlPool), as in jobs: it binds the media id arrays
 * natively and a post, its media and its version check fit in single statements.
 */
export function createCommunityOrm(databaseUrl: string): Promise<MikroORM> {
  return createOrm({ databaseUrl, schema: COMMUNITY_SCHEMA, entities: communityEntities, migrations: communityMigrations, poolMax: 2 });
}

export function migrateCommunity(orm: MikroORM, databaseUrl: string): Promise<string[]> {
  return migrate(orm, databaseUrl, COMMUNITY_SCHEMA);
}

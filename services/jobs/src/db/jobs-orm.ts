import { createOrm, migrate, type MikroORM } from '@atelier/orm';
import { jobsEntities } from './entities/index.js';
import { JOBS_SCHEMA, jobsMigrations } from './migrations/index.js';

export { JOBS_SCHEMA };

/**
 * MikroORM owns the jobs schema's configuration, migrations and entities (its description in code,
 * checked against the migrations). The service's own SQL (every
 * transition, the relay, the reaper) runs on a plain pg pool: see @atelier/db createSqlPool.
 */
export function createJobsOrm(databaseUrl: string): Promise<MikroORM> {
  return createOrm({ databaseUrl, schema: JOBS_SCHEMA, entities: jobsEntities, migrations: jobsMigrations, poolMax: 2 });
}

export function migrateJobs(orm: MikroORM, databaseUrl: string): Promise<string[]> {
  return migrate(orm, databaseUrl, JOBS_SCHEMA);
}

import pg from 'pg';
import type { MikroORM } from '@mikro-orm/postgresql';

/**
 * Applies the service's pending migrations and returns their names (empty when up to date, so
 * running it twice changes nothing). A session advisory lock per schema serialises concurrent
 * runs (two pods starting, a Helm hook racing `npm start`): the second waits, then finds
 * nothing to do.
 */
export async function migrate(orm: MikroORM, databaseUrl: string, schema: string): Promise<string[]> {
  const lockClient = new pg.Client({ connectionString: databaseUrl });
  await lockClient.connect();
  try {
    await lockClient.query('SELECT pg_advisory_lock(hashtext($1))', [`atelier.migrate.${schema}`]);
    await lockClient.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    const executed = await orm.migrator.up();
    return executed.map((migration) => migration.name);
  } finally {
    await lockClient.query('SELECT pg_advisory_unlock(hashtext($1))', [`atelier.migrate.${schema}`]).catch(() => {});
    await lockClient.end();
  }
}

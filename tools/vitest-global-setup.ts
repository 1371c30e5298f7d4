import pg from 'pg';
import { adminDatabaseUrl, dropStaleTestDatabases } from '@atelier/testing';

/** Fails fast with a clear message when Postgres is down, and sweeps crashed runs' databases. */
export default async function setup(): Promise<void> {
  const client = new pg.Client({ connectionString: adminDatabaseUrl(), connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
  } catch (error) {
    throw new Error(`tests need PostgreSQL at ${adminDatabaseUrl()} (TEST_DATABASE_ADMIN_URL): ${(error as Error).message}`);
  } finally {
    await client.end().catch(() => {});
  }
  await dropStaleTestDatabases();
}

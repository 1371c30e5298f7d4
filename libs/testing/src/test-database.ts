import pg from 'pg';
import { uniqueName } from './unique-name.js';

const TEST_DATABASE_PREFIX = 'atelier_test';

/** The maintenance database used to create and drop test databases (TEST_DATABASE_ADMIN_URL). */
export function adminDatabaseUrl(): string {
  return process.env.TEST_DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
}

export interface TestDatabase {
  readonly name: string;
  /** A DATABASE_URL for services under test. */
  readonly url: string;
  /** Drops the database, terminating connections left open. Idempotent. */
  drop(): Promise<void>;
}

async function withAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminDatabaseUrl() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Creates an empty database of its own for one test file or run. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = uniqueName(TEST_DATABASE_PREFIX);
  await withAdmin((client) => client.query(`CREATE DATABASE "${name}"`));
  const url = new URL(adminDatabaseUrl());
  url.pathname = `/${name}`;
  let dropped = false;
  return {
    name,
    url: url.toString(),
    async drop() {
      if (dropped) return;
      dropped = true;
      await withAdmin(async (client) => {
        // Pools that were just ended may still be closing their connections: give them a moment,
        // since a backend FORCE terminates under a closing client is an error nobody listens to.
        for (let waited = 0; waited < 2_000; waited += 50) {
          const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [name]);
          if (rows[0]!.n === 0) break;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      });
    },
  };
}

/** Drops test databases older than maxAgeSeconds that crashed runs left behind. */
export async function dropStaleTestDatabases(maxAgeSeconds = 6 * 3600): Promise<string[]> {
  return withAdmin(async (client) => {
    const { rows } = await client.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE $1`, [
      `${TEST_DATABASE_PREFIX}\\_%`,
    ]);
    const now = Math.floor(Date.now() / 1000);
    const stale = rows
      .map((row) => row.datname)
      .filter((name) => {
        const createdAt = Number(name.split('_')[2]);
        return Number.isFinite(createdAt) && now - createdAt > maxAgeSeconds;
      });
    for (const name of stale) await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    return stale;
  });
}

import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { adminDatabaseUrl, createTestDatabase, dropStaleTestDatabases, uniqueName } from './index.js';

async function databaseExists(name: string): Promise<boolean> {
  const admin = new pg.Client({ connectionString: adminDatabaseUrl() });
  await admin.connect();
  try {
    return (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1;
  } finally {
    await admin.end();
  }
}

describe('testing - a database per run', () => {
  it('creates a usable, uniquely named database and drops it even with open connections', async () => {
    const [a, b] = await Promise.all([createTestDatabase(), createTestDatabase()]);
    expect(a.name).not.toBe(b.name);
    const client = new pg.Client({ connectionString: a.url });
    await client.connect();
    expect((await client.query('SELECT current_database() AS db')).rows[0].db).toBe(a.name);
    client.on('error', () => {}); // the forced drop terminates this connection
    await a.drop();
    await a.drop();
    await b.drop();
    expect(await databaseExists(a.name)).toBe(false);
    expect(await databaseExists(b.name)).toBe(false);
  });

  it('sweeps test databases left by crashed runs, and only old ones', async () => {
    const stale = `atelier_test_${Math.floor(Date.now() / 1000) - 8 * 3600}_1_abcdef`;
    const admin = new pg.Client({ connectionString: adminDatabaseUrl() });
    await admin.connect();
    const fresh = await createTestDatabase();
    try {
      await admin.query(`CREATE DATABASE "${stale}"`);
      const dropped = await dropStaleTestDatabases();
      expect(dropped).toContain(stale);
      expect(dropped).not.toContain(fresh.name);
      expect(await databaseExists(fresh.name)).toBe(true);
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS "${stale}"`);
      await admin.end();
      await fresh.drop();
    }
  });

  it('makes unique names that carry their creation time', () => {
    const name = uniqueName('atelier_js');
    expect(name).toMatch(/^atelier_js_\d{10}_\d+_[0-9a-f]{6}$/);
    expect(uniqueName('x')).not.toBe(uniqueName('x'));
  });
});

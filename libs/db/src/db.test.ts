import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { adminDatabaseUrl, uniqueName } from '@atelier/testing';
import { ensureDatabaseExists, isTransientDatabaseError, isUniqueViolation, retryTransient, sqlStateOf, uuidv7 } from './index.js';

const isUuid = (value: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(value);

describe('db - uuidv7', () => {
  it('produces RFC 9562 version 7 ids that sort by creation time', () => {
    const earlier = uuidv7(Date.UTC(2026, 0, 1));
    const later = uuidv7(Date.UTC(2026, 0, 2));
    for (const id of [earlier, later]) {
      expect(isUuid(id)).toBe(true);
      expect(id[14]).toBe('7');
      expect(['8', '9', 'a', 'b']).toContain(id[19]);
    }
    expect(earlier < later).toBe(true);
    expect(earlier.slice(0, 13)).toBe('019b76da-a800');
  });

  it('does not repeat', () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => uuidv7()));
    expect(ids.size).toBe(10_000);
  });
});

describe('db - SQL error classification', () => {
  it('reads the SQLSTATE of a real unique violation', async () => {
    const client = new pg.Client({ connectionString: adminDatabaseUrl() });
    await client.connect();
    try {
      await client.query('CREATE TEMP TABLE t (id int PRIMARY KEY)');
      await client.query('INSERT INTO t VALUES (1)');
      const error = await client.query('INSERT INTO t VALUES (1)').catch((e: unknown) => e);
      expect(sqlStateOf(error)).toBe('23505');
      expect(isUniqueViolation(error)).toBe(true);
      expect(isUniqueViolation(error, 't_pkey')).toBe(true);
      expect(isUniqueViolation(error, 'other')).toBe(false);
      expect(isTransientDatabaseError(error)).toBe(false);
    } finally {
      await client.end();
    }
  });

  it('retries transient failures only, and gives up after the budget', async () => {
    let calls = 0;
    const deadlock = Object.assign(new Error('deadlock detected'), { code: '40P01' });
    await expect(
      retryTransient(
        async () => {
          calls += 1;
          if (calls < 3) throw deadlock;
          return 'done';
        },
        { baseDelayMs: 1 },
      ),
    ).resolves.toBe('done');
    expect(calls).toBe(3);

    calls = 0;
    await expect(
      retryTransient(
        async () => {
          calls += 1;
          throw Object.assign(new Error('duplicate'), { code: '23505' });
        },
        { baseDelayMs: 1 },
      ),
    ).rejects.toThrow('duplicate');
    expect(calls).toBe(1);

    calls = 0;
    await expect(
      retryTransient(
        async () => {
          calls += 1;
          throw deadlock;
        },
        { retries: 1, baseDelayMs: 1 },
      ),
    ).rejects.toBe(deadlock);
    expect(calls).toBe(2);
  });
});

describe('db - ensureDatabaseExists', () => {
  it('creates a missing database once, then leaves it alone', async () => {
    const name = uniqueName('atelier_test');
    const url = new URL(adminDatabaseUrl());
    url.pathname = `/${name}`;
    const admin = new pg.Client({ connectionString: adminDatabaseUrl() });
    await admin.connect();
    try {
      const results = await Promise.all([ensureDatabaseExists(url.toString()), ensureDatabaseExists(url.toString())]);
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await ensureDatabaseExists(url.toString())).toBe(false);
      const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
      expect(rowCount).toBe(1);
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end();
    }
  });
});

import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '@atelier/errors';
import { adminDatabaseUrl, createTestDatabase, uniqueName, type TestDatabase } from '@atelier/testing';
import {
  assertSchemaCurrent,
  createSqlPool,
  databaseUnavailable,
  ensureDatabaseExists,
  inTransaction,
  isConnectionLoss,
  isTransientDatabaseError,
  isUniqueViolation,
  lockAllForTransaction,
  lockForTransaction,
  MIGRATIONS_TABLE,
  SchemaBehindError,
  sqlStateOf,
  uuidv7,
} from './index.js';

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

  it('names a lost connection or a lost race UNAVAILABLE, and leaves every other error alone', () => {
    for (const lost of [
      Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
      Object.assign(new Error('could not serialize access'), { code: '40001' }),
      Object.assign(new Error('connection failure'), { code: '08006' }),
      new Error('Connection terminated unexpectedly'),
      new Error('timeout exceeded when trying to connect'),
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
    ]) {
      const unavailable = databaseUnavailable(lost);
      expect(unavailable, lost.message).toMatchObject({
        code: ErrorCode.UNAVAILABLE,
        reason: 'DATABASE_UNAVAILABLE',
        retryAfterSeconds: 1,
      });
      expect(unavailable!.cause).toBe(lost);
    }
    expect(isConnectionLoss(Object.assign(new Error('could not serialize access'), { code: '40001' }))).toBe(false);
    expect(databaseUnavailable(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBeUndefined();
    expect(databaseUnavailable(new TypeError('x is not a function'))).toBeUndefined();
  });
});

describe('db - the pool through database faults', () => {
  let database: TestDatabase;
  let admin: pg.Client;
  beforeAll(async () => {
    database = await createTestDatabase();
    admin = new pg.Client({ connectionString: adminDatabaseUrl() });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
    await database?.drop();
  });

  /** Terminates, from outside, every backend the test database has: what a failover or a DBA does. */
  const terminateAll = () =>
    admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [database.name]);
  const whileRunning = async (statement: Promise<unknown>) => {
    const outcome = statement.then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    await terminateAll();
    return outcome;
  };

  it('runs a read again on a new connection when its backend is terminated mid-statement', async () => {
    const pool = createSqlPool({ databaseUrl: database.url, applicationName: 'db-test' });
    try {
      const outcome = await whileRunning(pool.query('SELECT pg_sleep(0.6), 42 AS answer'));
      expect(outcome).toMatchObject({ value: { rows: [{ answer: 42 }] } });
    } finally {
      await pool.end();
    }
  });

  it('answers a write cut short UNAVAILABLE without running it again, and serves the next call', async () => {
    const pool = createSqlPool({ databaseUrl: database.url, applicationName: 'db-test' });
    try {
      await pool.query('CREATE TABLE IF NOT EXISTS writes (n int)');
      const outcome = await whileRunning(pool.query('INSERT INTO writes SELECT 1 FROM pg_sleep(0.6)'));
      expect((outcome as { error: unknown }).error).toMatchObject({ code: ErrorCode.UNAVAILABLE, reason: 'DATABASE_UNAVAILABLE' });
      expect((await pool.query('SELECT count(*)::int AS n FROM writes')).rows[0].n).toBe(0);
      const transaction = inTransaction(pool, async (client) => {
        await client.query('INSERT INTO writes VALUES (2)');
        await client.query('SELECT pg_sleep(0.6)');
      });
      expect(((await whileRunning(transaction)) as { error: unknown }).error).toMatchObject({ code: ErrorCode.UNAVAILABLE });
      await inTransaction(pool, (client) => client.query('INSERT INTO writes VALUES (3)'));
      expect((await pool.query('SELECT array_agg(n) AS ns FROM writes')).rows[0].ns).toEqual([3]);
    } finally {
      await pool.end();
    }
  });

  it('refuses at once, UNAVAILABLE, a caller that would wait behind too many others for a connection', async () => {
    const pool = createSqlPool({ databaseUrl: database.url, applicationName: 'db-test', max: 1, maxWaiting: 1 });
    try {
      const holding = pool.query('SELECT pg_sleep(0.5)');
      const waiting = pool.query('SELECT 1');
      await new Promise((resolve) => setTimeout(resolve, 50));
      const refused = await pool.query('SELECT 2').catch((error: unknown) => error);
      expect(refused).toMatchObject({ code: ErrorCode.UNAVAILABLE, reason: 'DATABASE_BUSY', retryAfterSeconds: 1 });
      await Promise.all([holding, waiting]);
      expect((await pool.query('SELECT 3 AS n')).rows[0].n).toBe(3);
    } finally {
      await pool.end();
    }
  });

  it('has the server end a statement that runs past the statement timeout', async () => {
    const pool = createSqlPool({ databaseUrl: database.url, applicationName: 'db-test', statementTimeoutMs: 200 });
    try {
      const error = await pool.query('SELECT pg_sleep(2)').catch((caught: unknown) => caught);
      expect(sqlStateOf(error)).toBe('57014'); // query_canceled
    } finally {
      await pool.end();
    }
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

describe('db - advisory locks', () => {
  let database: TestDatabase;
  let pool: ReturnType<typeof createSqlPool>;
  beforeAll(async () => {
    database = await createTestDatabase();
    pool = createSqlPool({ databaseUrl: database.url, max: 4, applicationName: 'lock-test' });
  });
  afterAll(async () => {
    await pool?.end();
    await database?.drop();
  });

  const held = () => new Promise<void>((resolve) => setTimeout(resolve, 300));

  it('takes the same lock for a key locked alone or among many', async () => {
    const order: string[] = [];
    const first = inTransaction(pool, async (client) => {
      await lockAllForTransaction(client, 'test.scope', ['b', 'a', 'a']);
      order.push('many locked');
      await held();
      order.push('many done');
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const second = inTransaction(pool, async (client) => {
      await lockForTransaction(client, 'test.scope', 'a');
      order.push('one locked');
    });
    await Promise.all([first, second]);
    expect(order).toEqual(['many locked', 'many done', 'one locked']);
  });

  it('sets the settings it is given with the locks, for the rest of the transaction only', async () => {
    const client = await pool.connect();
    const mode = async () => (await client.query<{ mode: string }>(`SELECT current_setting('plan_cache_mode') AS mode`)).rows[0]!.mode;
    try {
      await client.query('BEGIN');
      await lockAllForTransaction(client, 'test.scope', ['a'], { plan_cache_mode: 'force_generic_plan' });
      expect(await mode()).toBe('force_generic_plan');
      const locked = await client.query(`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()`);
      expect(locked.rows[0].n).toBe(1);
      await client.query('COMMIT');
      expect(await mode()).toBe('auto');
    } finally {
      client.release();
    }
  });

  it('never deadlocks two transactions that lock overlapping sets given in opposite orders', async () => {
    const keys = Array.from({ length: 20 }, (_, i) => `user-${i}`);
    const runs = Array.from({ length: 8 }, (_, i) =>
      inTransaction(pool, async (client) => {
        await lockAllForTransaction(client, 'test.scope', i % 2 ? keys : [...keys].reverse());
        await new Promise((resolve) => setTimeout(resolve, 20));
      }),
    );
    await expect(Promise.all(runs)).resolves.toHaveLength(8);
  });
});

describe('db - assertSchemaCurrent', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });

  const migration = (name: string) => ({ name, load: async () => class {} });
  const owner = { service: 'widgets', schema: 'widgets', migrations: [migration('0001-widgets'), migration('0002-widget-name')] };

  it('refuses a missing schema, naming the schema, every pending migration and the command that applies them', async () => {
    const refusal = await assertSchemaCurrent(database.url, owner).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(SchemaBehindError);
    expect(refusal).toMatchObject({
      code: ErrorCode.FAILED_PRECONDITION,
      reason: 'SCHEMA_BEHIND',
      pending: ['0001-widgets', '0002-widget-name'],
    });
    expect((refusal as Error).message).toContain(
      'schema widgets is behind the code of widgets (not applied: 0001-widgets, 0002-widget-name)',
    );
    expect((refusal as Error).message).toContain('npm run migrate -w @atelier/widgets');
  });

  it('refuses a schema missing its newest migration, and accepts it once applied', async () => {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      await client.query(
        `CREATE SCHEMA widgets; CREATE TABLE widgets.${MIGRATIONS_TABLE} (name text); INSERT INTO widgets.${MIGRATIONS_TABLE} VALUES ('0001-widgets')`,
      );
      await expect(assertSchemaCurrent(database.url, owner)).rejects.toMatchObject({ pending: ['0002-widget-name'] });
      await client.query(`INSERT INTO widgets.${MIGRATIONS_TABLE} VALUES ('0002-widget-name')`);
      await expect(assertSchemaCurrent(database.url, owner)).resolves.toBeUndefined();
    } finally {
      await client.end();
    }
  });
});

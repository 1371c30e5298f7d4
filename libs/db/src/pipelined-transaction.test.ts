import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@atelier/testing';
import { createSqlPool, inPipelinedTransaction, inTransaction, lockAllForTransaction, lockAllStatement, type SqlPool } from './index.js';

/** How many times the pool's connections wrote to their sockets, while `work` ran. */
async function socketWrites(pool: SqlPool, work: () => Promise<unknown>): Promise<number> {
  const client = await pool.connect();
  type Write = (this: unknown, ...args: unknown[]) => unknown;
  const stream = (client as unknown as { connection: { stream: { _write: Write; _writev: Write } } }).connection.stream;
  let writes = 0;
  const { _write, _writev } = stream;
  stream._write = function (...args: unknown[]) {
    writes += 1;
    return _write.apply(this, args);
  };
  stream._writev = function (...args: unknown[]) {
    writes += 1;
    return _writev.apply(this, args);
  };
  client.release();
  try {
    await work();
  } finally {
    Object.assign(stream, { _write, _writev });
  }
  return writes;
}

describe.each([
  ['pipelined', true],
  ['one statement after the other (a pool without pipeline mode)', false],
])('db - inPipelinedTransaction, %s', (_, pipeline) => {
  let database: TestDatabase;
  let pool: SqlPool;
  let other: SqlPool;
  beforeAll(async () => {
    database = await createTestDatabase();
    // One connection: what a transaction leaves on it is what the next caller finds.
    pool = createSqlPool({ databaseUrl: database.url, max: 1, applicationName: 'pipeline-test', pipeline });
    other = createSqlPool({ databaseUrl: database.url, max: 2, applicationName: 'pipeline-test-other' });
    await other.query('CREATE TABLE items (id int PRIMARY KEY, owner text NOT NULL)');
  });
  afterAll(async () => {
    await Promise.all([pool?.end(), other?.end()]);
    await database?.drop();
  });

  it('commits every statement together and answers each one its result, BEGIN and COMMIT left out', async () => {
    const results = await inPipelinedTransaction(pool, [
      { text: 'INSERT INTO items VALUES ($1, $2), ($3, $2)', values: [1, 'ann', 2] },
      { name: 'test.count_items', text: 'SELECT count(*)::int AS n FROM items WHERE owner = $1', values: ['ann'] },
    ]);
    expect(results.map((result) => result.command)).toEqual(['INSERT', 'SELECT']);
    // The second statement sees what the first wrote.
    expect(results[1]!.rows).toEqual([{ n: 2 }]);
    expect((await other.query('SELECT count(*)::int AS n FROM items')).rows[0].n).toBe(2);
  });

  it('throws the first error, keeps nothing of the statements before it, and leaves the connection ready', async () => {
    const error = await inPipelinedTransaction(pool, [
      { text: 'INSERT INTO items VALUES ($1, $2)', values: [10, 'bob'] },
      { text: 'INSERT INTO items VALUES ($1, $2)', values: [1, 'bob'] }, // taken above
      { text: 'INSERT INTO items VALUES ($1, $2)', values: [11, 'bob'] },
    ]).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: '23505', constraint: 'items_pkey' });
    expect((await other.query(`SELECT count(*)::int AS n FROM items WHERE owner = 'bob'`)).rows[0].n).toBe(0);
    // The pool's one connection is out of the failed transaction: the next one commits.
    await inPipelinedTransaction(pool, [{ text: 'INSERT INTO items VALUES ($1, $2)', values: [12, 'bob'] }]);
    expect((await pool.query(`SELECT count(*)::int AS n FROM items WHERE owner = 'bob'`)).rows[0].n).toBe(1);
    expect((await pool.query(`SELECT current_setting('transaction_isolation') AS level`)).rows[0].level).toBe('read committed');
  });

  it('runs a statement after a lock with a snapshot taken once the lock is held: it counts what the holder committed', async () => {
    const holder = inTransaction(other, async (client) => {
      await lockAllForTransaction(client, 'test.scope', ['carol']);
      await client.query('INSERT INTO items VALUES ($1, $2)', [20, 'carol']);
      // The pipelined transaction queues behind the lock meanwhile.
      await new Promise((resolve) => setTimeout(resolve, 300));
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const [, counted] = await inPipelinedTransaction(pool, [
      lockAllStatement('test.scope', ['carol']),
      { text: 'SELECT count(*)::int AS n FROM items WHERE owner = $1', values: ['carol'] },
    ]);
    await holder;
    expect(counted!.rows).toEqual([{ n: 1 }]);
  });

  it('ends the settings it made with its transaction', async () => {
    const [, setting] = await inPipelinedTransaction(pool, [
      lockAllStatement('test.scope', ['dan'], { plan_cache_mode: 'force_generic_plan' }),
      { text: `SELECT current_setting('plan_cache_mode') AS mode` },
    ]);
    expect(setting!.rows).toEqual([{ mode: 'force_generic_plan' }]);
    expect((await pool.query(`SELECT current_setting('plan_cache_mode') AS mode`)).rows[0].mode).toBe('auto');
  });

  it(`writes BEGIN, the statements and COMMIT ${pipeline ? 'in one write' : 'one write each'}`, async () => {
    const statements = [
      { name: 'test.insert_item', text: 'INSERT INTO items VALUES ($1, $2)', values: [30, 'erin'] },
      { name: 'test.insert_item', text: 'INSERT INTO items VALUES ($1, $2)', values: [31, 'erin'] },
    ];
    const writes = await socketWrites(pool, () => inPipelinedTransaction(pool, statements));
    expect(writes).toBe(pipeline ? 1 : 4);
  });
});

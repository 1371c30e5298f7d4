import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { UserRefKey } from '@atelier/outbox';
import { createTestDatabase } from '@atelier/testing';
import type { OutboxSubjects } from '../db/job-row.js';
import { createJobsOrm, migrateJobs } from '../db/jobs-orm.js';
import { productEventSubjects } from '../db/outbox-payload-sql.js';

/** The subjects transitions write their outbox rows for, under a test prefix, for tests that run the statements directly. */
export function testOutboxSubjects(userRefKey = new UserRefKey(randomBytes(32).toString('hex'))): OutboxSubjects {
  return {
    dispatchInteractive: 't.dispatch.interactive',
    dispatchBackground: 't.dispatch.background',
    eventPrefix: 't.events.',
    providerCancel: 't.control.provider-cancel',
    accountDeleted: 't.accounts.events.deleted',
    productEvents: productEventSubjects('t.product.events.', userRefKey),
  };
}

/** A database of the test's own with the jobs schema migrated, and a pool on it; drop() closes the pool and drops it. */
export async function migratedJobsDatabase(): Promise<{ pool: pg.Pool; drop(): Promise<void> }> {
  const database = await createTestDatabase();
  const orm = await createJobsOrm(database.url);
  await migrateJobs(orm, database.url);
  await orm.close();
  // Pipelined, as jobs' own pool is (jobs-app.ts): the statements run as they run in the service.
  const pool = new pg.Pool({ connectionString: database.url, max: 4, ...({ pipeline: true } as pg.PoolConfig) });
  return {
    pool,
    async drop() {
      await pool.end();
      await database.drop();
    },
  };
}

/**
 * A pool on a database of the suite's own with the jobs schema migrated, from the suite's first
 * test on (made in its beforeAll, dropped in its afterAll): call it at the top of a test file.
 */
export function suiteJobsPool(): pg.Pool {
  let database: Awaited<ReturnType<typeof migratedJobsDatabase>> | undefined;
  beforeAll(async () => {
    database = await migratedJobsDatabase();
  }, 60_000);
  afterAll(async () => {
    await database?.drop();
  });
  return new Proxy({} as pg.Pool, {
    get(_, key) {
      if (!database) throw new Error('suiteJobsPool: the pool is there from the first test on, not while the file loads');
      const value: unknown = Reflect.get(database.pool, key);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(database.pool) : value;
    },
  });
}

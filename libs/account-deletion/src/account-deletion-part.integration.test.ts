import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Queryable } from '@atelier/db';
import { ErrorCode } from '@atelier/errors';
import { createTestDatabase, type TestDatabase } from '@atelier/testing';
import type { AccountDeleted } from './account-deleted-event.js';
import { accountDeletionOf, getAccountDeletionPart, type AccountDeletionPart } from './account-deletion-part.js';
import { accountDeletionStarted, selectAccountDeletion } from './account-deletion-sql.js';
import { accountDeletionRequestsTable, accountDeletionsTable, accountDeletionsTableSql } from './account-deletions-table.js';

/**
 * The kit's part of deleting an account on real Postgres, for a made-up service whose data is a
 * table of items: `parts` takes its part on the event, `requests` is a request table as jobs'.
 */
const PART = accountDeletionsTable('parts');
const REQUEST = accountDeletionRequestsTable('requests', 'items');

let database: TestDatabase;
let pool: pg.Pool;
const silent = { warn: vi.fn() };

beforeAll(async () => {
  database = await createTestDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 4 });
  for (const table of [PART, REQUEST]) {
    await pool.query(`CREATE SCHEMA ${table.schema}`);
    await pool.query(accountDeletionsTableSql(table));
    await pool.query(
      `CREATE TABLE ${table.schema}.items (id serial PRIMARY KEY, user_id text NOT NULL, keep boolean NOT NULL DEFAULT false)`,
    );
    await pool.query(`CREATE TABLE ${table.schema}.handles (user_id text PRIMARY KEY)`);
  }
}, 60_000);

afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

const newUser = () => `user-${randomUUID().slice(0, 8)}`;
const eventFor = (userId: string, deletionId: string = randomUUID()): AccountDeleted => ({ userId, deletionId, requestedAt: new Date() });

async function give(schema: string, userId: string, items: number, options: { kept?: number } = {}): Promise<void> {
  await pool.query(`INSERT INTO ${schema}.items (user_id) SELECT $1 FROM generate_series(1, $2)`, [userId, items]);
  await pool.query(`INSERT INTO ${schema}.items (user_id, keep) SELECT $1, true FROM generate_series(1, $2)`, [userId, options.kept ?? 0]);
  await pool.query(`INSERT INTO ${schema}.handles (user_id) VALUES ($1)`, [userId]);
}

const countOf = async (sql: string, userId: string) => Number((await pool.query<{ n: string }>(sql, [userId])).rows[0]!.n);
const itemsOf = (schema: string, userId: string) => countOf(`SELECT count(*) AS n FROM ${schema}.items WHERE user_id = $1`, userId);
const handlesOf = (schema: string, userId: string) => countOf(`SELECT count(*) AS n FROM ${schema}.handles WHERE user_id = $1`, userId);

/** The service's own part: items go a batch at a time, except those kept (an open upload, say); the handle last. */
function itemsPart(table = PART, overrides: Partial<AccountDeletionPart> = {}): AccountDeletionPart {
  return {
    service: 'items',
    table,
    lockUser: vi.fn(async () => {}),
    deleteBatch: async (db: Queryable, userId: string, limit: number) => {
      const { rowCount } = await db.query(
        `DELETE FROM ${table.schema}.items WHERE id IN (SELECT id FROM ${table.schema}.items WHERE user_id = $1 AND NOT keep ORDER BY id LIMIT $2)`,
        [userId, limit],
      );
      return rowCount ?? 0;
    },
    batchSize: 2,
    remainingSql: `SELECT 1 FROM ${table.schema}.items WHERE user_id = $1`,
    lastly: async (db: Queryable, userId: string) => {
      await db.query(`DELETE FROM ${table.schema}.handles WHERE user_id = $1`, [userId]);
    },
    remains: 'items of the account are kept for now',
    ...overrides,
  };
}

describe('accountDeletionOf - a part started by the event', () => {
  it('starts the record under the service’s lock, deletes and counts every batch, then completes and deletes what goes last', async () => {
    const [userId, other] = [newUser(), newUser()];
    await give('parts', userId, 5);
    await give('parts', other, 3);
    const part = itemsPart();
    const event = eventFor(userId);

    await accountDeletionOf(part, { pool, logger: silent })(event);

    expect(part.lockUser).toHaveBeenCalledWith(expect.anything(), userId);
    expect(await itemsOf('parts', userId)).toBe(0);
    expect(await handlesOf('parts', userId)).toBe(0);
    expect(await itemsOf('parts', other)).toBe(3);
    expect(await handlesOf('parts', other)).toBe(1);
    const record = await selectAccountDeletion(pool, PART, userId);
    expect(record).toMatchObject({ user_id: userId, deletion_id: event.deletionId, removed: 5 });
    expect(record?.completed_at).toBeInstanceOf(Date);
    expect(await accountDeletionStarted(pool, PART, userId)).toBe(true);
    expect(await accountDeletionStarted(pool, PART, other)).toBe(false);
  });

  it('does nothing more for a part already done (the event comes at least once)', async () => {
    const userId = newUser();
    await give('parts', userId, 1);
    const event = eventFor(userId);
    await accountDeletionOf(itemsPart(), { pool, logger: silent })(event);
    const deleteBatch = vi.fn(async () => 0);

    await accountDeletionOf(itemsPart(PART, { deleteBatch }), { pool, logger: silent })(event);

    expect(deleteBatch).not.toHaveBeenCalled();
  });

  it('throws while something of the user remains, keeps what it deleted counted, and completes on a later delivery', async () => {
    const userId = newUser();
    await give('parts', userId, 3, { kept: 1 });
    const run = accountDeletionOf(itemsPart(), { pool, logger: silent });
    const event = eventFor(userId);

    const refused = await run(event).catch((error: unknown) => error);

    expect(refused).toMatchObject({ code: ErrorCode.ABORTED, reason: 'ACCOUNT_DELETION_UNFINISHED' });
    expect((refused as Error).message).toContain('items: items of the account are kept for now');
    expect(await selectAccountDeletion(pool, PART, userId)).toMatchObject({ removed: 3, completed_at: null });
    expect(await handlesOf('parts', userId), 'what goes last waits for the rest').toBe(1);

    await pool.query(`UPDATE parts.items SET keep = false WHERE user_id = $1`, [userId]);
    await run(event);
    expect(await selectAccountDeletion(pool, PART, userId)).toMatchObject({ removed: 4, completed_at: expect.any(Date) });
    expect(await handlesOf('parts', userId)).toBe(0);
  });

  it('rolls a failed batch back, uncounted, and resumes from what is left', async () => {
    const userId = newUser();
    await give('parts', userId, 4);
    const failing = itemsPart();
    const deleteOnce = failing.deleteBatch;
    let batches = 0;
    failing.deleteBatch = async (db, user, limit) => {
      const deleted = await deleteOnce(db, user, limit);
      if (++batches === 2) throw new Error('the object store refused the batch');
      return deleted;
    };
    const event = eventFor(userId);

    await expect(accountDeletionOf(failing, { pool, logger: silent })(event)).rejects.toThrow('the object store refused the batch');
    expect(await itemsOf('parts', userId)).toBe(2);
    expect(await selectAccountDeletion(pool, PART, userId)).toMatchObject({ removed: 2, completed_at: null });

    await accountDeletionOf(itemsPart(), { pool, logger: silent })(event);
    expect(await selectAccountDeletion(pool, PART, userId)).toMatchObject({ removed: 4, completed_at: expect.any(Date) });
  });

  it('answers GetAccountDeletion with the part: not started, then working, then done', async () => {
    const userId = newUser();
    const answer = getAccountDeletionPart(pool, PART);
    expect(await answer({ userId })).toEqual({ part: { started: false, completedAt: undefined, removed: 0 } });
    await give('parts', userId, 2, { kept: 1 });
    await accountDeletionOf(itemsPart(), { pool, logger: silent })(eventFor(userId)).catch(() => {});
    expect(await answer({ userId })).toEqual({ part: { started: true, completedAt: undefined, removed: 2 } });
    await expect(answer({ userId: 'not a user id' })).rejects.toMatchObject({ code: ErrorCode.INVALID_ARGUMENT, field: 'user_id' });
  });
});

describe('accountDeletionOf - a part whose record is the request (jobs)', () => {
  async function request(userId: string): Promise<string> {
    const deletionId = randomUUID();
    await pool.query(`INSERT INTO requests.account_deletions (user_id, deletion_id) VALUES ($1, $2)`, [userId, deletionId]);
    return deletionId;
  }

  it('runs before the sweep what the service must first, then deletes and counts into its own columns', async () => {
    const userId = newUser();
    await give('requests', userId, 3);
    const deletionId = await request(userId);
    const beforeSweep = vi.fn(async () => {});

    await accountDeletionOf(itemsPart(REQUEST, { beforeSweep, lockUser: undefined }), { pool, logger: silent })(
      eventFor(userId, deletionId),
    );

    expect(beforeSweep).toHaveBeenCalledOnce();
    expect(await itemsOf('requests', userId)).toBe(0);
    const { rows } = await pool.query(`SELECT items_removed, items_completed_at FROM requests.account_deletions WHERE user_id = $1`, [
      userId,
    ]);
    expect(rows[0]).toMatchObject({ items_removed: 3, items_completed_at: expect.any(Date) });
    expect(await selectAccountDeletion(pool, REQUEST, userId)).toMatchObject({ deletion_id: deletionId, removed: 3 });
  });

  it.each([
    ['no request of the user', false],
    ['another deletion id than the request’s', true],
  ])('ignores an event with %s (a forged one), deleting nothing', async (_, requested) => {
    const userId = newUser();
    await give('requests', userId, 2);
    if (requested) await request(userId);
    const logger = { warn: vi.fn() };

    await accountDeletionOf(itemsPart(REQUEST, { lockUser: undefined }), { pool, logger })(eventFor(userId));

    expect(await itemsOf('requests', userId)).toBe(2);
    expect(logger.warn).toHaveBeenCalledWith(expect.objectContaining({ service: 'items' }), expect.stringContaining('has no request for'));
  });
});

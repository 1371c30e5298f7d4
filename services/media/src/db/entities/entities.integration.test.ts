import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schemaDrift } from '@atelier/orm';
import { columnLengthsOf, createTestDatabase, type TestDatabase } from '@atelier/testing';
import { MAX_IDEMPOTENCY_KEY_LENGTH, MAX_USER_ID_LENGTH } from '@atelier/validation';
import { createMediaOrm, migrateMedia } from '../media-orm.js';

let database: TestDatabase;
let orm: Awaited<ReturnType<typeof createMediaOrm>>;
let db: pg.Client;
beforeAll(async () => {
  database = await createTestDatabase();
  orm = await createMediaOrm(database.url, 1);
  await migrateMedia(orm, database.url);
  db = new pg.Client({ connectionString: database.url });
  await db.connect();
});
afterAll(async () => {
  await db?.end();
  await orm?.close();
  await database?.drop();
});

describe('media entities - the schema described in code', () => {
  it('match, table for table, the schema the migrations build', async () => {
    expect(await schemaDrift(orm)).toEqual([]);
  });

  it("hold what users send to @atelier/validation's limits: the migrations' column sizes name the same numbers", async () => {
    expect(await columnLengthsOf(db, 'media.assets')).toMatchObject({
      owner_user_id: MAX_USER_ID_LENGTH,
      idempotency_key: MAX_IDEMPOTENCY_KEY_LENGTH,
    });
    expect(await columnLengthsOf(db, 'media.account_deletions')).toMatchObject({ user_id: MAX_USER_ID_LENGTH });
  });
});

import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schemaDrift } from '@atelier/orm';
import { columnLengthsOf, createTestDatabase, type TestDatabase } from '@atelier/testing';
import { MAX_USER_ID_LENGTH, MAX_WEBHOOK_DESCRIPTION_LENGTH, MAX_WEBHOOK_URL_LENGTH } from '@atelier/validation';
import { createWebhooksOrm, migrateWebhooks } from '../webhooks-orm.js';

let database: TestDatabase;
let orm: Awaited<ReturnType<typeof createWebhooksOrm>>;
let db: pg.Client;
beforeAll(async () => {
  database = await createTestDatabase();
  orm = await createWebhooksOrm(database.url);
  await migrateWebhooks(orm, database.url);
  db = new pg.Client({ connectionString: database.url });
  await db.connect();
});
afterAll(async () => {
  await db?.end();
  await orm?.close();
  await database?.drop();
});

describe('webhooks entities - the schema described in code', () => {
  it('match, table for table, the schema the migrations build', async () => {
    expect(await schemaDrift(orm)).toEqual([]);
  });

  it("hold what users send to @atelier/validation's limits: the migrations' column sizes name the same numbers", async () => {
    expect(await columnLengthsOf(db, 'webhooks.endpoints')).toMatchObject({
      user_id: MAX_USER_ID_LENGTH,
      url: MAX_WEBHOOK_URL_LENGTH,
      description: MAX_WEBHOOK_DESCRIPTION_LENGTH,
    });
    expect(await columnLengthsOf(db, 'webhooks.account_deletions')).toMatchObject({ user_id: MAX_USER_ID_LENGTH });
  });
});

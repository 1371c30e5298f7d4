import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schemaDrift } from '@atelier/orm';
import { createTestDatabase, type TestDatabase } from '@atelier/testing';
import { createWebhooksOrm, migrateWebhooks } from '../webhooks-orm.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.drop();
});

describe('webhooks entities - the schema described in code', () => {
  it('match, table for table, the schema the migrations build', async () => {
    const orm = await createWebhooksOrm(database.url);
    try {
      await migrateWebhooks(orm, database.url);
      expect(await schemaDrift(orm)).toEqual([]);
    } finally {
      await orm.close();
    }
  });
});

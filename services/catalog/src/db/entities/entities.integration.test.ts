import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schemaDrift } from '@atelier/orm';
import { createTestDatabase, type TestDatabase } from '@atelier/testing';
import { createCatalogOrm, migrateCatalog } from '../catalog-orm.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.drop();
});

describe('catalog entities - the schema described in code', () => {
  it('match, table for table, the schema the migrations build', async () => {
    const orm = await createCatalogOrm(database.url, 1);
    try {
      await migrateCatalog(orm, database.url);
      expect(await schemaDrift(orm)).toEqual([]);
    } finally {
      await orm.close();
    }
  });
});

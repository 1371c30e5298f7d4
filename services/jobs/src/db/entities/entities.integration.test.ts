import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schemaDrift } from '@atelier/orm';
import { createTestDatabase, type TestDatabase } from '@atelier/testing';
import { createJobsOrm, migrateJobs } from '../jobs-orm.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.drop();
});

describe('jobs entities - the schema described in code', () => {
  it('match, table for table, the schema the migrations build', async () => {
    const orm = await createJobsOrm(database.url);
    try {
      await migrateJobs(orm, database.url);
      expect(await schemaDrift(orm)).toEqual([]);
    } finally {
      await orm.close();
    }
  });
});

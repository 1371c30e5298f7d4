import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schemaDrift } from '@atelier/orm';
import { columnLengthsOf, createTestDatabase, type TestDatabase } from '@atelier/testing';
import { MAX_IDEMPOTENCY_KEY_LENGTH, MAX_POST_CONTENT_LENGTH, MAX_POST_TITLE_LENGTH, MAX_USER_ID_LENGTH } from '@atelier/validation';
import { createCommunityOrm, migrateCommunity } from '../community-orm.js';

let database: TestDatabase;
let orm: Awaited<ReturnType<typeof createCommunityOrm>>;
let db: pg.Client;
beforeAll(async () => {
  database = await createTestDatabase();
  orm = await createCommunityOrm(database.url);
  await migrateCommunity(orm, database.url);
  db = new pg.Client({ connectionString: database.url });
  await db.connect();
});
afterAll(async () => {
  await db?.end();
  await orm?.close();
  await database?.drop();
});

describe('community entities - the schema described in code', () => {
  it('match, table for table, the schema the migrations build', async () => {
    expect(await schemaDrift(orm)).toEqual([]);
  });

  it("hold what users send to @atelier/validation's limits: the migrations' column sizes name the same numbers", async () => {
    expect(await columnLengthsOf(db, 'community.posts')).toMatchObject({
      author_user_id: MAX_USER_ID_LENGTH,
      title: MAX_POST_TITLE_LENGTH,
      content: MAX_POST_CONTENT_LENGTH,
      idempotency_key: MAX_IDEMPOTENCY_KEY_LENGTH,
    });
    expect(await columnLengthsOf(db, 'community.authors')).toMatchObject({ user_id: MAX_USER_ID_LENGTH });
    expect(await columnLengthsOf(db, 'community.account_deletions')).toMatchObject({ user_id: MAX_USER_ID_LENGTH });
  });
});

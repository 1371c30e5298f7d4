import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schemaDrift } from '@atelier/orm';
import { columnLengthsOf, createTestDatabase, type TestDatabase } from '@atelier/testing';
import {
  MAX_MODEL_DISPLAY_NAME_LENGTH,
  MAX_MODEL_VERSION_LENGTH,
  MAX_PROMPT_PRESET_LENGTH,
  MAX_PROVIDER_MODEL_LENGTH,
  MAX_STYLE_SUBTITLE_LENGTH,
  MAX_STYLE_TITLE_LENGTH,
} from '@atelier/validation';
import { createCatalogOrm, migrateCatalog } from '../catalog-orm.js';

let database: TestDatabase;
let orm: Awaited<ReturnType<typeof createCatalogOrm>>;
let db: pg.Client;
beforeAll(async () => {
  database = await createTestDatabase();
  orm = await createCatalogOrm(database.url, 1);
  await migrateCatalog(orm, database.url);
  db = new pg.Client({ connectionString: database.url });
  await db.connect();
});
afterAll(async () => {
  await db?.end();
  await orm?.close();
  await database?.drop();
});

describe('catalog entities - the schema described in code', () => {
  it('match, table for table, the schema the migrations build', async () => {
    expect(await schemaDrift(orm)).toEqual([]);
  });

  it("hold what operators send to @atelier/validation's limits: the migrations' column sizes name the same numbers", async () => {
    expect(await columnLengthsOf(db, 'catalog.models')).toMatchObject({
      display_name: MAX_MODEL_DISPLAY_NAME_LENGTH,
      provider_model: MAX_PROVIDER_MODEL_LENGTH,
      model_version: MAX_MODEL_VERSION_LENGTH,
    });
    expect(await columnLengthsOf(db, 'catalog.styles')).toMatchObject({
      title: MAX_STYLE_TITLE_LENGTH,
      subtitle: MAX_STYLE_SUBTITLE_LENGTH,
      prompt_preset: MAX_PROMPT_PRESET_LENGTH,
    });
  });
});

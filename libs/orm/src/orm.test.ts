import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pendingMigrations, type NamedMigration } from '@atelier/db';
import { createTestDatabase, type TestDatabase } from '@atelier/testing';
import { Migration, createOrm, migrate } from './index.js';

class CreateWidgets extends Migration {
  override async up(): Promise<void> {
    this.addSql('CREATE TABLE widgets.widgets (id int PRIMARY KEY)');
  }
}

class AddWidgetName extends Migration {
  override async up(): Promise<void> {
    this.addSql('ALTER TABLE widgets.widgets ADD COLUMN name text');
  }
}

const first: NamedMigration = { name: '0001-widgets', load: async () => CreateWidgets };
const second: NamedMigration = { name: '0002-widget-name', load: async () => AddWidgetName };

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.drop();
});

describe('orm - migrations and the start-up schema check', () => {
  it('reports every migration pending on a schema that does not exist yet', async () => {
    expect(await pendingMigrations(database.url, 'widgets', [first, second])).toEqual(['0001-widgets', '0002-widget-name']);
  });

  it('applies pending migrations once, even when two runs race, and the check then agrees', async () => {
    const orm = await createOrm({ databaseUrl: database.url, schema: 'widgets', entities: [], migrations: [first], poolMax: 2 });
    const other = await createOrm({ databaseUrl: database.url, schema: 'widgets', entities: [], migrations: [first], poolMax: 2 });
    try {
      const runs = await Promise.all([migrate(orm, database.url, 'widgets'), migrate(other, database.url, 'widgets')]);
      expect(runs.flat()).toEqual(['0001-widgets']);
    } finally {
      await orm.close();
      await other.close();
    }
    expect(await pendingMigrations(database.url, 'widgets', [first])).toEqual([]);
    // New code with one more migration: the schema is behind until it runs.
    expect(await pendingMigrations(database.url, 'widgets', [first, second])).toEqual(['0002-widget-name']);
    const upgraded = await createOrm({
      databaseUrl: database.url,
      schema: 'widgets',
      entities: [],
      migrations: [first, second],
      poolMax: 2,
    });
    try {
      expect(await migrate(upgraded, database.url, 'widgets')).toEqual(['0002-widget-name']);
      expect(await migrate(upgraded, database.url, 'widgets')).toEqual([]);
    } finally {
      await upgraded.close();
    }
    expect(await pendingMigrations(database.url, 'widgets', [first, second])).toEqual([]);
  });
});

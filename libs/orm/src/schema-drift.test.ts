import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NamedMigration } from '@atelier/db';
import { createTestDatabase, type TestDatabase } from '@atelier/testing';
import { Migration, createOrm, defineEntity, migrate, p, schemaDrift } from './index.js';

class CreateGadgets extends Migration {
  override up(): void {
    this.addSql(`CREATE TABLE gadgets.gadgets (
      id         uuid        PRIMARY KEY,
      owner_id   varchar(64) NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`);
    this.addSql('CREATE INDEX gadgets_owner_created_idx ON gadgets.gadgets (owner_id, created_at DESC, id DESC)');
  }
}

const migrations: NamedMigration[] = [{ name: '0001-gadgets', load: async () => CreateGadgets }];

/** The table as the migration builds it, with the index MikroORM cannot read back given raw. */
function gadget(options: { ownerLength?: number; indexDdl?: string } = {}) {
  return defineEntity({
    name: 'Gadget',
    tableName: 'gadgets',
    properties: {
      id: p.uuid().primary(),
      ownerId: p.string().length(options.ownerLength ?? 64),
      createdAt: p.datetime().defaultRaw('now()'),
    },
    indexes: [
      {
        name: 'gadgets_owner_created_idx',
        expression:
          options.indexDdl ?? 'CREATE INDEX gadgets_owner_created_idx ON gadgets.gadgets USING btree (owner_id, created_at DESC, id DESC)',
      },
    ],
  });
}

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
  const orm = await createOrm({ databaseUrl: database.url, schema: 'gadgets', entities: [gadget()], migrations, poolMax: 1 });
  try {
    await migrate(orm, database.url, 'gadgets');
  } finally {
    await orm.close();
  }
});
afterAll(async () => {
  await database?.drop();
});

async function driftWith(entity: ReturnType<typeof gadget>): Promise<string[]> {
  const orm = await createOrm({ databaseUrl: database.url, schema: 'gadgets', entities: [entity], migrations, poolMax: 1 });
  try {
    return await schemaDrift(orm);
  } finally {
    await orm.close();
  }
}

describe('orm - schema drift between entities and the database', () => {
  it('finds none when the entity describes the table the migration built', async () => {
    expect(await driftWith(gadget())).toEqual([]);
  });

  it('names the statement that would make a column match its entity', async () => {
    expect(await driftWith(gadget({ ownerLength: 65 }))).toEqual([
      'alter table "gadgets"."gadgets" alter column "owner_id" type varchar(65) using ("owner_id"::varchar(65));',
    ]);
  });

  it('compares an index given as raw DDL with what Postgres prints for it, which MikroORM does not', async () => {
    const ddl = 'CREATE INDEX gadgets_owner_created_idx ON gadgets.gadgets USING btree (owner_id, created_at DESC, id)';
    expect(await driftWith(gadget({ indexDdl: ddl }))).toEqual([
      'index gadgets.gadgets.gadgets_owner_created_idx: the database has ' +
        'CREATE INDEX gadgets_owner_created_idx ON gadgets.gadgets USING btree (owner_id, created_at DESC, id DESC) ' +
        `(the entity has: ${ddl})`,
    ]);
  });
});

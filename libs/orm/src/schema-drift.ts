import type { MikroORM } from '@mikro-orm/postgresql';

/**
 * What separates the database from the ORM's entities, one line per difference; empty when they
 * agree. The entities are each schema's description in code, so a test asserts this is empty on a
 * database the real migrations have just built: a migration and its entity cannot drift apart.
 *
 * Two sources, because MikroORM's own diff has a blind spot:
 *   - every statement of MikroORM's schema diff (`getUpdateSchemaSQL`): tables, columns with
 *     their types, nullability and defaults, primary keys, indexes (partial ones with their
 *     predicate), unique constraints, checks, foreign keys with their rules, triggers;
 *   - every index, unique index or trigger an entity gives as raw DDL (`expression`), compared
 *     with what Postgres prints for it (`pg_get_indexdef`, `pg_get_triggerdef`). MikroORM matches
 *     those by name only, so without this a raw index could say anything.
 *
 * Raw DDL is for what MikroORM 7.2 cannot read back: it finds a column's sort order by searching
 * the index definition for the column's name, so in `(user_id, created_at DESC, id DESC)` it
 * finds `id` inside `user_id` and reads `id` as ascending — its diff would report the index
 * changed on every run. And a trigger whose function is not named `<table>_<trigger>_fn`
 * (MikroORM's own convention) has no body MikroORM can compare. Write such DDL exactly as Postgres
 * prints it.
 *
 * What MikroORM cannot see: it compares a CHECK or a partial index's predicate as text stripped
 * of parentheses, casts, quotes and case, so a change that only regroups an expression goes
 * unnoticed.
 */
export async function schemaDrift(orm: MikroORM): Promise<string[]> {
  const statements = (await orm.schema.getUpdateSchemaSQL({ wrap: false }))
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  return [...statements, ...(await rawDefinitionDrift(orm))];
}

interface RawDefinition {
  kind: 'index' | 'trigger';
  schema: string;
  table: string;
  name: string;
  ddl: string;
}

function rawDefinitions(orm: MikroORM): RawDefinition[] {
  const defaultSchema = orm.config.get('schema') ?? 'public';
  const found: RawDefinition[] = [];
  for (const meta of orm.getMetadata().getAll().values()) {
    const where = { schema: meta.schema ?? defaultSchema, table: meta.tableName };
    for (const index of [...meta.indexes, ...meta.uniques]) {
      if (typeof index.expression !== 'string') continue;
      if (!index.name) throw new Error(`${meta.className}: an index given as raw DDL needs its name, to be found in the database`);
      found.push({ kind: 'index', ...where, name: index.name, ddl: index.expression });
    }
    for (const trigger of meta.triggers) {
      if (trigger.expression === undefined) continue;
      if (!trigger.name) throw new Error(`${meta.className}: a trigger given as raw DDL needs its name, to be found in the database`);
      found.push({ kind: 'trigger', ...where, name: trigger.name, ddl: trigger.expression });
    }
  }
  return found;
}

const DEFINITION_SQL = {
  index: `SELECT pg_get_indexdef(i.indexrelid) AS ddl
            FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_class t ON t.oid = i.indrelid
           WHERE c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = ?) AND t.relname = ? AND c.relname = ?`,
  trigger: `SELECT pg_get_triggerdef(tg.oid) AS ddl
              FROM pg_trigger tg JOIN pg_class t ON t.oid = tg.tgrelid
             WHERE t.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = ?) AND t.relname = ? AND tg.tgname = ?`,
} as const;

async function rawDefinitionDrift(orm: MikroORM): Promise<string[]> {
  const connection = orm.driver.getConnection();
  const drift: string[] = [];
  for (const wanted of rawDefinitions(orm)) {
    const rows = await connection.execute<{ ddl: string }[]>(DEFINITION_SQL[wanted.kind], [wanted.schema, wanted.table, wanted.name]);
    const actual = rows[0]?.ddl;
    if (actual === wanted.ddl) continue;
    const where = `${wanted.kind} ${wanted.schema}.${wanted.table}.${wanted.name}`;
    drift.push(
      actual === undefined
        ? `${where}: missing (the entity has: ${wanted.ddl})`
        : `${where}: the database has ${actual} (the entity has: ${wanted.ddl})`,
    );
  }
  return drift;
}

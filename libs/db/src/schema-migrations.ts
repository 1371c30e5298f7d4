import pg from 'pg';

/** Where MikroORM's migrator records applied migrations, inside each service's own schema. */
export const MIGRATIONS_TABLE = 'mikro_orm_migrations';

/**
 * A migration in a service's ordered list. The class is loaded on demand, so a service checking
 * its schema at start-up knows every name without loading the ORM that runs them.
 */
export interface NamedMigration {
  /** Sorts in execution order (`0001-…`); never renamed once released. */
  name: string;
  load(): Promise<new (...args: never[]) => object>;
}

const UNDEFINED_TABLE = '42P01';
const INVALID_SCHEMA_NAME = '3F000';

/**
 * Start-up guard: the names of the service's migrations its schema has not applied yet (all of
 * them when the schema or its migrations table does not exist). A service never serves on a
 * schema that is behind its code.
 */
export async function pendingMigrations(databaseUrl: string, schema: string, migrations: readonly NamedMigration[]): Promise<string[]> {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: `${schema}-schema-check` });
  await client.connect();
  try {
    const result = await client.query<{ name: string }>(`SELECT name FROM "${schema.replaceAll('"', '""')}".${MIGRATIONS_TABLE}`);
    const applied = new Set(result.rows.map((row) => row.name));
    return migrations.map((m) => m.name).filter((name) => !applied.has(name));
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === UNDEFINED_TABLE || code === INVALID_SCHEMA_NAME) return migrations.map((m) => m.name);
    throw error;
  } finally {
    await client.end().catch(() => {});
  }
}

import pg from 'pg';
import { FailedPreconditionError } from '@atelier/errors';

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
 * The names of a service's migrations its schema has not applied yet (all of them when the
 * schema or its migrations table does not exist).
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

/** Which service owns a schema and the migrations its code expects there. */
export interface ServiceSchema {
  /** The workspace (services/<service>, `@atelier/<service>`) whose `npm run migrate` applies them. */
  service: string;
  schema: string;
  migrations: readonly NamedMigration[];
}

/** A service's schema lacks migrations its code needs: the service must not serve on it. */
export class SchemaBehindError extends FailedPreconditionError {
  override name = 'SchemaBehindError';
  readonly schema: string;
  readonly pending: readonly string[];

  constructor(owner: ServiceSchema, pending: readonly string[]) {
    super(
      'SCHEMA_BEHIND',
      `schema ${owner.schema} is behind the code of ${owner.service} (not applied: ${pending.join(', ')}): ` +
        `run \`npm run migrate -w @atelier/${owner.service}\` first (in Kubernetes the chart's migration Job runs it before each rollout)`,
    );
    this.schema = owner.schema;
    this.pending = pending;
  }
}

/**
 * Start-up guard of every service that owns a schema: resolves when every migration of its code
 * is applied, else rejects with a SchemaBehindError that names the schema, the missing migrations
 * and the command that applies them.
 */
export async function assertSchemaCurrent(databaseUrl: string, owner: ServiceSchema): Promise<void> {
  const pending = await pendingMigrations(databaseUrl, owner.schema, owner.migrations);
  if (pending.length > 0) throw new SchemaBehindError(owner, pending);
}

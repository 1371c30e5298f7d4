import { MikroORM, type EntitySchema, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { MIGRATIONS_TABLE, type NamedMigration } from '@atelier/db';

export type { MikroORM };

export interface OrmOptions {
  /** Postgres URL (DATABASE_URL). */
  databaseUrl: string;
  /** The service's own schema: its tables and its migrations table live there, nowhere else. */
  schema: string;
  entities: readonly EntitySchema[];
  migrations: readonly NamedMigration[];
  /** Connection pool size (default 10). */
  poolMax?: number;
  /** Extra MikroORM options (tests, tuning). */
  overrides?: Partial<Options>;
}

/**
 * One MikroORM per service, bound to one schema. Entities are listed explicitly; migrations are
 * plain SQL classes in an explicit list (no file globbing, so bundling and tsx both work), each
 * run in its own transaction — or in none, when it says so (`isTransactional()` false: CREATE
 * INDEX CONCURRENTLY on a populated table cannot run in one). Requests must fork the EntityManager (`orm.em.fork()`): the global
 * context is disabled so shared state cannot leak between units of work.
 */
export async function createOrm(options: OrmOptions): Promise<MikroORM> {
  const migrationsList = await Promise.all(options.migrations.map(async (m) => ({ name: m.name, class: (await m.load()) as never })));
  return MikroORM.init({
    clientUrl: options.databaseUrl,
    schema: options.schema,
    entities: [...options.entities],
    extensions: [Migrator],
    allowGlobalContext: false,
    forceUtcTimezone: true,
    ensureDatabase: false,
    discovery: { warnWhenNoEntities: false },
    pool: { min: 0, max: options.poolMax ?? 10 },
    migrations: {
      tableName: MIGRATIONS_TABLE,
      migrationsList,
      transactional: true,
      // Not one transaction around the whole run: a migration that runs outside a transaction
      // would then run beside an uncommitted one (on a fresh schema it would not even see the
      // tables). A failed run keeps the migrations before the failing one, recorded as applied.
      allOrNothing: false,
      snapshot: false,
      silent: true,
    },
    debug: false,
    ...options.overrides,
  });
}

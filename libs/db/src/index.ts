/**
 * Database access for Atelier services at run time: a plain pg pool for the SQL each service
 * writes out (a database blip reaches callers as UNAVAILABLE), UUIDv7 ids, the SQLSTATE table
 * that decides what is transient, and the start-up schema check. Deliberately free of the ORM (about 40 MB resident): MikroORM, which owns the
 * schemas' configuration and migrations, lives in `@atelier/orm`.
 */
export { createSqlPool, inTransaction, type SqlPool, type SqlPoolOptions, type SqlClient, type Queryable } from './sql-pool.js';
export { ensureDatabaseExists } from './ensure-database.js';
export {
  assertSchemaCurrent,
  pendingMigrations,
  SchemaBehindError,
  MIGRATIONS_TABLE,
  type NamedMigration,
  type ServiceSchema,
} from './schema-migrations.js';
export { uuidv7, monotonicUuidv7 } from './uuidv7.js';
export { SqlState, sqlStateOf, isUniqueViolation, isConnectionLoss, isTransientDatabaseError, databaseUnavailable } from './sql-errors.js';
export { lockForTransaction, lockAllForTransaction, lockAllStatement } from './advisory-lock.js';
export { inPipelinedTransaction, type PipelinedStatement } from './pipelined-transaction.js';
export { NotificationListener, coalescedNotifier } from './notification-listener.js';

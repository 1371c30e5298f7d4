/**
 * Database access for Atelier services: MikroORM on PostgreSQL with one schema per service,
 * migrations, UUIDv7 ids, and the SQLSTATE table that decides what is retried.
 */
export { createOrm, type OrmOptions, type NamedMigration, type MikroORM } from './create-orm.js';
export { migrate } from './migrate.js';
export { createSqlPool, inTransaction, type SqlPool, type SqlClient, type Queryable } from './sql-pool.js';
export { ensureDatabaseExists } from './ensure-database.js';
export { runMigrateCli, pendingMigrations } from './migrate-cli.js';
export { uuidv7 } from './uuidv7.js';
export { SqlState, sqlStateOf, violatedConstraint, isUniqueViolation, isTransientDatabaseError, retryTransient } from './sql-errors.js';
export { Migration } from '@mikro-orm/migrations';
export { defineEntity, p, type EntityManager, type InferEntity } from '@mikro-orm/postgresql';

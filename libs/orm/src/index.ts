/**
 * MikroORM on PostgreSQL with one schema per service: each schema's configuration, the migrations
 * that shape it and its entities (`defineEntity`), which describe it in code and are checked
 * against it (`schemaDrift`). Loaded only by migration runs (`npm run migrate`, the Helm hook Job)
 * and tests: services run their SQL on `@atelier/db`'s plain pg pool, so the ORM costs them no
 * memory.
 */
export { createOrm, type OrmOptions, type MikroORM } from './create-orm.js';
export { migrate } from './migrate.js';
export { runMigrateCli } from './migrate-cli.js';
export { schemaDrift } from './schema-drift.js';
export { Migration } from '@mikro-orm/migrations';
export { defineEntity, p } from '@mikro-orm/core';

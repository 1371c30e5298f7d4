/**
 * MikroORM on PostgreSQL with one schema per service: each schema's configuration and the
 * migrations that shape it. Loaded only by migration runs (`npm run migrate`, the Helm hook Job):
 * services run their SQL on `@atelier/db`'s plain pg pool, so the ORM costs them no memory.
 */
export { createOrm, type OrmOptions, type MikroORM } from './create-orm.js';
export { migrate } from './migrate.js';
export { runMigrateCli } from './migrate-cli.js';
export { Migration } from '@mikro-orm/migrations';

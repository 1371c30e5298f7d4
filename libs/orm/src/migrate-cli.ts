import { loadConfigOrExit, oneOf, url } from '@atelier/config';
import { createLogger } from '@atelier/logging';
import type { MikroORM } from '@mikro-orm/postgresql';
import { ensureDatabaseExists } from '@atelier/db';
import { migrate } from './migrate.js';

/**
 * The body of every service's `npm run migrate`: reads DATABASE_URL, creates the database when
 * missing, applies the schema's pending migrations, logs what it did and exits non-zero on
 * failure.
 */
export async function runMigrateCli(service: string, schema: string, createOrm: (databaseUrl: string) => Promise<MikroORM>): Promise<void> {
  const config = loadConfigOrExit(`${service}-migrate`, {
    DATABASE_URL: url({ protocols: ['postgres:', 'postgresql:'], default: 'postgres://postgres@127.0.0.1:5432/atelier', secret: true }),
    LOG_LEVEL: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
  });
  const logger = createLogger({ service: `${service}-migrate`, level: config.LOG_LEVEL });
  try {
    if (await ensureDatabaseExists(config.DATABASE_URL)) logger.info({}, 'database created');
    const orm = await createOrm(config.DATABASE_URL);
    try {
      const applied = await migrate(orm, config.DATABASE_URL, schema);
      logger.info({ applied }, applied.length ? 'migrations applied' : `schema ${schema} is up to date`);
    } finally {
      await orm.close();
    }
  } catch (error) {
    logger.error({ err: error }, 'migration failed');
    process.exitCode = 1;
  }
}

// `npm run migrate -w @atelier/catalog`: applies pending migrations to schema catalog and exits.
import { loadConfigOrExit } from '@atelier/config';
import { ensureDatabaseExists } from '@atelier/db';
import { createLogger } from '@atelier/logging';
import { catalogConfigSpec } from '../config.js';
import { createCatalogOrm, migrateCatalog } from './catalog-orm.js';

const config = loadConfigOrExit('catalog-migrate', {
  DATABASE_URL: catalogConfigSpec.DATABASE_URL,
  LOG_LEVEL: catalogConfigSpec.LOG_LEVEL,
});
const logger = createLogger({ service: 'catalog-migrate', level: config.LOG_LEVEL });
if (await ensureDatabaseExists(config.DATABASE_URL)) logger.info({}, 'database created');
const orm = await createCatalogOrm(config.DATABASE_URL, 2);
try {
  const applied = await migrateCatalog(orm, config.DATABASE_URL);
  logger.info({ applied }, applied.length ? 'migrations applied' : 'schema catalog is up to date');
} catch (error) {
  logger.error({ err: error }, 'migration failed');
  process.exitCode = 1;
} finally {
  await orm.close();
}

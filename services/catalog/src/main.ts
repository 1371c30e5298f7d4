// The catalog service: telemetry first (it must patch gRPC and pg before they load), then
// configuration, wiring, serving; shutdown in reverse order.
import { startTelemetry } from '@atelier/telemetry';

const telemetry = startTelemetry({ serviceName: 'catalog' });

const { loadConfigOrExit } = await import('@atelier/config');
const { createLogger } = await import('@atelier/logging');
const { installShutdownHandlers } = await import('@atelier/lifecycle');
const { catalogConfigSpec } = await import('./config.js');
const { pendingMigrations } = await import('@atelier/db');
const { createCatalogOrm } = await import('./db/catalog-orm.js');
const { startCatalogServer } = await import('./server.js');

const config = loadConfigOrExit('catalog', catalogConfigSpec);
const logger = createLogger({ service: 'catalog', level: config.LOG_LEVEL });
const orm = await createCatalogOrm(config.DATABASE_URL);
const pending = await pendingMigrations(orm);
if (pending.length > 0) {
  logger.fatal({ pending }, 'schema catalog is behind: run `npm run migrate -w @atelier/catalog`');
  await orm.close();
  process.exit(1);
}
const server = await startCatalogServer({ orm }, { port: config.GRPC_PORT, logger });
logger.info({ port: server.port }, 'catalog serving gRPC');

installShutdownHandlers(
  async () => {
    await server.shutdown(config.SHUTDOWN_GRACE_MS);
    await orm.close();
    await telemetry.shutdown();
  },
  { logger, graceMs: config.SHUTDOWN_GRACE_MS + 5_000 },
);

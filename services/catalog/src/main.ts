// The catalog service: telemetry first (it must patch gRPC and pg before they load), then
// configuration, wiring, serving; shutdown in reverse order.
import { startTelemetry } from '@atelier/telemetry';

const telemetry = await startTelemetry({ serviceName: 'catalog' });

const { loadConfigOrExit } = await import('@atelier/config');
const { createLogger } = await import('@atelier/logging');
const { installShutdownHandlers } = await import('@atelier/lifecycle');
const { catalogConfigSpec } = await import('./config.js');
const { checkNatsCredentials, NATS_HEALTH_SERVICE } = await import('@atelier/nats');
const { openChangeNotices } = await import('./change-notices.js');
const { createSqlPool, pendingMigrations } = await import('@atelier/db');
const { CATALOG_SCHEMA, catalogMigrations } = await import('./db/migrations/index.js');
const { startCatalogServer } = await import('./server.js');
const { startServiceMetrics } = await import('@atelier/metrics');
const { loadGrpcSecurityOrExit, servingOptionsOf } = await import('@atelier/grpc');

const config = loadConfigOrExit('catalog', catalogConfigSpec, process.env, [checkNatsCredentials]);
const logger = createLogger({ service: 'catalog', level: config.LOG_LEVEL });
const security = loadGrpcSecurityOrExit(config, logger);
const pending = await pendingMigrations(config.DATABASE_URL, CATALOG_SCHEMA, catalogMigrations);
if (pending.length > 0) {
  logger.fatal({ pending }, 'schema catalog is behind: run `npm run migrate -w @atelier/catalog`');
  process.exit(1);
}
const metrics = await startServiceMetrics('catalog', { port: config.METRICS_PORT });
const pool = createSqlPool({ databaseUrl: config.DATABASE_URL, max: config.DB_POOL_MAX, applicationName: 'catalog' });
// Set once serving; the link may come up (or go down) before or after.
const serverRef: { current?: Awaited<ReturnType<typeof startCatalogServer>> } = {};
const notices = openChangeNotices(config, logger, (up) =>
  serverRef.current?.health.setStatus(NATS_HEALTH_SERVICE, up ? 'SERVING' : 'NOT_SERVING'),
);
const server = await startCatalogServer(
  { pool, announceChange: notices.announce },
  { ...servingOptionsOf(config, security), logger, callObserver: metrics.grpcCalls },
);
serverRef.current = server;
server.health.setStatus(NATS_HEALTH_SERVICE, notices.link.up() ? 'SERVING' : 'NOT_SERVING');
logger.info({ port: server.port, metricsPort: metrics.port }, 'catalog serving gRPC');

installShutdownHandlers(
  async () => {
    await server.shutdown(config.SHUTDOWN_GRACE_MS);
    await notices.close();
    await pool.end();
    await metrics.close();
    await telemetry.shutdown();
  },
  { logger, graceMs: config.SHUTDOWN_GRACE_MS + 5_000 },
);

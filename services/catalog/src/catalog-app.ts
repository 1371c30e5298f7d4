import { createSqlPool } from '@atelier/db';
import { mediaV1 } from '@atelier/contracts';
import { createServiceClient, loadGrpcSecurity, servingOptionsOf, type CallObserver, type GrpcServerHandle } from '@atelier/grpc';
import { Closers, runGrpcService } from '@atelier/lifecycle';
import type { Logger } from '@atelier/logging';
import { NATS_HEALTH_SERVICE, checkNatsCredentials } from '@atelier/nats';
import type { Telemetry } from '@atelier/telemetry';
import { openChangeNotices } from './peers/change-notices.js';
import { previewAssetsOf } from './peers/preview-assets.js';
import { catalogConfigSpec, shutdownPolicy, type CatalogConfig } from './config.js';
import { CATALOG_SCHEMA, catalogMigrations } from './db/migrations/index.js';
import { startCatalogServer } from './server.js';

export type CatalogAppConfig = Omit<CatalogConfig, 'LOG_LEVEL' | 'SHUTDOWN_GRACE_MS' | 'METRICS_PORT'>;

export interface CatalogApp {
  readonly server: GrpcServerHandle;
  /** Stops serving (graceful for graceMs), then the change notices and the pool. */
  stop(graceMs: number): Promise<void>;
}

/**
 * Wires the catalog service: the pg pool, the change notices on NATS (catalog serves without the
 * broker; its health says whether the link is up) and the gRPC server.
 */
export async function startCatalogApp(
  config: CatalogAppConfig,
  logger: Logger,
  options: { callObserver?: CallObserver } = {},
): Promise<CatalogApp> {
  const security = loadGrpcSecurity(config);
  const closers = new Closers();
  const pool = createSqlPool({ databaseUrl: config.DATABASE_URL, max: config.DB_POOL_MAX, applicationName: 'catalog' });
  closers.add('pool', () => pool.end());
  // Set once serving; the link may come up (or go down) before or after.
  const serverRef: { current?: GrpcServerHandle } = {};
  const notices = openChangeNotices(config, logger, (up) =>
    serverRef.current?.health.setStatus(NATS_HEALTH_SERVICE, up ? 'SERVING' : 'NOT_SERVING'),
  );
  closers.add('change notices', () => notices.close());
  // Media is needed only to write a style with a preview and to link one; catalog serves without it.
  const media = createServiceClient(mediaV1.MediaServiceClient, config.MEDIA_ADDR, security);
  closers.add('media client', () => media.close());
  const server = await closers.opening(
    startCatalogServer(
      { pool, announceChange: notices.announce, previews: previewAssetsOf(media) },
      { ...servingOptionsOf(config, security), logger, callObserver: options.callObserver },
    ),
  );
  closers.add('gRPC server', (graceMs) => server.shutdown(graceMs));
  serverRef.current = server;
  server.health.setStatus(NATS_HEALTH_SERVICE, notices.link.up() ? 'SERVING' : 'NOT_SERVING');
  return {
    server,
    stop: (graceMs) => closers.close(graceMs),
  };
}

/** The catalog process (main.ts hands over once telemetry runs). */
export function runCatalog(telemetry: Telemetry): Promise<void> {
  return runGrpcService({
    name: 'catalog',
    telemetry,
    spec: catalogConfigSpec,
    checks: [checkNatsCredentials],
    shutdown: shutdownPolicy,
    schema: { service: 'catalog', schema: CATALOG_SCHEMA, migrations: catalogMigrations },
    start: (config, logger, metrics) => startCatalogApp(config, logger, { callObserver: metrics.grpcCalls }),
  });
}

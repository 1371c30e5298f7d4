// The community service: telemetry first (it must patch gRPC and pg before they load), then
// configuration, the schema check, wiring and serving; shutdown in reverse.
import { startTelemetry } from '@atelier/telemetry';

const telemetry = await startTelemetry({ serviceName: 'community' });

const { loadConfigOrExit } = await import('@atelier/config');
const { pendingMigrations } = await import('@atelier/db');
const { createLogger } = await import('@atelier/logging');
const { installShutdownHandlers } = await import('@atelier/lifecycle');
const { communityConfigSpec } = await import('./config.js');
const { COMMUNITY_SCHEMA, communityMigrations } = await import('./db/migrations/index.js');
const { startCommunityApp } = await import('./community-app.js');
const { startServiceMetrics } = await import('@atelier/metrics');

const config = loadConfigOrExit('community', communityConfigSpec);
const logger = createLogger({ service: 'community', level: config.LOG_LEVEL });

const pending = await pendingMigrations(config.DATABASE_URL, COMMUNITY_SCHEMA, communityMigrations);
if (pending.length > 0) {
  logger.fatal({ pending }, 'schema community is behind: run `npm run migrate -w @atelier/community`');
  process.exit(1);
}

const metrics = await startServiceMetrics('community', { port: config.METRICS_PORT });
const app = await startCommunityApp(config, logger, { callObserver: metrics.grpcCalls });
logger.info(
  { port: app.server.port, metricsPort: metrics.port, mediaAddr: config.MEDIA_ADDR, jobsAddr: config.JOBS_ADDR },
  'community serving gRPC',
);

installShutdownHandlers(
  async () => {
    await app.stop(config.SHUTDOWN_GRACE_MS);
    await metrics.close();
    await telemetry.shutdown();
  },
  { logger, graceMs: config.SHUTDOWN_GRACE_MS + 5_000 },
);

// The jobs service: telemetry first (it must patch gRPC and pg before they load), then
// configuration, the schema check, wiring and serving; shutdown in reverse.
import { startTelemetry } from '@atelier/telemetry';

const telemetry = await startTelemetry({ serviceName: 'jobs' });

const { loadConfigOrExit } = await import('@atelier/config');
const { checkNatsCredentials } = await import('@atelier/nats');
const { pendingMigrations } = await import('@atelier/db');
const { createLogger } = await import('@atelier/logging');
const { installShutdownHandlers } = await import('@atelier/lifecycle');
const { checkRetention, jobsConfigSpec } = await import('./config.js');
const { JOBS_SCHEMA, jobsMigrations } = await import('./db/migrations/index.js');
const { startJobsApp } = await import('./jobs-app.js');
const { startServiceMetrics } = await import('@atelier/metrics');

const config = loadConfigOrExit('jobs', jobsConfigSpec, process.env, [checkNatsCredentials, checkRetention]);
const logger = createLogger({ service: 'jobs', level: config.LOG_LEVEL });

const pending = await pendingMigrations(config.DATABASE_URL, JOBS_SCHEMA, jobsMigrations);
if (pending.length > 0) {
  logger.fatal({ pending }, 'schema jobs is behind: run `npm run migrate -w @atelier/jobs`');
  process.exit(1);
}

const metrics = await startServiceMetrics('jobs', { port: config.METRICS_PORT });
const app = await startJobsApp(config, logger, { metrics });
logger.info({ port: app.server.port, metricsPort: metrics.port, streamPrefix: config.NATS_STREAM_PREFIX }, 'jobs serving gRPC');

installShutdownHandlers(
  async () => {
    await app.stop(config.SHUTDOWN_GRACE_MS);
    await metrics.close();
    await telemetry.shutdown();
  },
  { logger, graceMs: config.SHUTDOWN_GRACE_MS + 5_000 },
);

// The media service: telemetry first (it must patch gRPC and pg before they load), then
// configuration, the object store, the database, serving and the sweeper; shutdown in reverse.
import { hostname } from 'node:os';
import { startTelemetry } from '@atelier/telemetry';

const telemetry = await startTelemetry({ serviceName: 'media' });

const { loadConfigOrExit } = await import('@atelier/config');
const { checkNatsCredentials } = await import('@atelier/nats');
const { createSqlPool, pendingMigrations } = await import('@atelier/db');
const { createLogger } = await import('@atelier/logging');
const { installShutdownHandlers } = await import('@atelier/lifecycle');
const { mediaConfigSpec } = await import('./config.js');
const { MEDIA_SCHEMA, mediaMigrations } = await import('./db/migrations/index.js');
const { startMediaServer } = await import('./server.js');
const { loadGrpcSecurityOrExit, servingOptionsOf } = await import('@atelier/grpc');
const { ObjectStore } = await import('./storage/object-store.js');
const { startUploadSweeper } = await import('./upload-sweeper.js');
const { startServiceMetrics } = await import('@atelier/metrics');
const { NATS_HEALTH_SERVICE, jobsTopology, openNatsLink } = await import('@atelier/nats');
const { JobOutputCleanup } = await import('./job-output-cleanup.js');
const { jobsStatusLookup } = await import('./job-status-lookup.js');

const config = loadConfigOrExit('media', mediaConfigSpec, process.env, [checkNatsCredentials]);
const logger = createLogger({ service: 'media', level: config.LOG_LEVEL });
const security = loadGrpcSecurityOrExit(config, logger);

if (config.S3_ENDPOINT && (!config.S3_ACCESS_KEY_ID || !config.S3_SECRET_ACCESS_KEY)) {
  process.stderr.write('media: invalid configuration:\n  S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY are required when S3_ENDPOINT is set\n');
  process.exit(78);
}
// Only a local run without S3_ENDPOINT loads the embedded store (and its dependencies).
const embeddedS3 = config.S3_ENDPOINT ? undefined : await import('./storage/embedded-s3.js');
const embedded = await embeddedS3?.startEmbeddedS3({ directory: config.S3_EMBEDDED_DIR, port: config.S3_EMBEDDED_PORT });
if (embedded)
  logger.warn(
    { endpoint: embedded.endpoint, directory: config.S3_EMBEDDED_DIR },
    'no S3_ENDPOINT: using the embedded local store (development only)',
  );

const store = new ObjectStore({
  endpoint: config.S3_ENDPOINT ?? embedded!.endpoint,
  publicEndpoint: config.S3_PUBLIC_ENDPOINT,
  region: config.S3_REGION,
  bucket: config.S3_BUCKET,
  accessKeyId: config.S3_ACCESS_KEY_ID ?? embeddedS3!.EMBEDDED_S3_CREDENTIALS.accessKeyId,
  secretAccessKey: config.S3_SECRET_ACCESS_KEY ?? embeddedS3!.EMBEDDED_S3_CREDENTIALS.secretAccessKey,
  forcePathStyle: config.S3_FORCE_PATH_STYLE,
});
await store.ensureBucket();

const pending = await pendingMigrations(config.DATABASE_URL, MEDIA_SCHEMA, mediaMigrations);
if (pending.length > 0) {
  logger.fatal({ pending }, 'schema media is behind: run `npm run migrate -w @atelier/media`');
  process.exit(1);
}

const metrics = await startServiceMetrics('media', { port: config.METRICS_PORT });
const pool = createSqlPool({ databaseUrl: config.DATABASE_URL, max: config.DB_POOL_MAX, applicationName: 'media' });
const context = {
  pool,
  store,
  logger,
  uploadUrlTtlSeconds: config.UPLOAD_URL_TTL_SECONDS,
  downloadUrlTtlSeconds: config.DOWNLOAD_URL_TTL_SECONDS,
  uploadLimits: {
    uploadsPerDay: config.UPLOADS_DAILY_LIMIT,
    storedBytes: config.STORED_BYTES_LIMIT,
    storedBytesRetryAfterSeconds: config.STORED_BYTES_RETRY_AFTER_SECONDS,
  },
  uploadCompletionsMax: config.UPLOAD_COMPLETIONS_MAX,
};
const server = await startMediaServer(context, { ...servingOptionsOf(config, security), callObserver: metrics.grpcCalls });
const stopSweeper = startUploadSweeper({ pool, store, logger, maxAgeMs: config.UPLOAD_TTL_MS, intervalMs: config.SWEEP_INTERVAL_MS });
// The orphan-output cleanup listens to the jobs' lifecycle events. Media serves without NATS:
// the cleanup starts when the broker first answers and the durable consumer catches up after.
const nats = config.NATS_URL
  ? openNatsLink({
      servers: config.NATS_URL,
      name: `media@${hostname()}`,
      credentials: config,
      logger,
      onStateChange: (up) => server.health.setStatus(NATS_HEALTH_SERVICE, up ? 'SERVING' : 'NOT_SERVING'),
    })
  : undefined;
server.health.setStatus(NATS_HEALTH_SERVICE, nats?.up() ? 'SERVING' : 'NOT_SERVING');
const jobStatus = nats ? jobsStatusLookup(config.JOBS_ADDR, security) : undefined;
const outputCleanup =
  nats && jobStatus
    ? new JobOutputCleanup({ pool, store, jobStatus: jobStatus.lookup, topology: jobsTopology(config.NATS_STREAM_PREFIX), logger })
    : undefined;
if (nats && outputCleanup) {
  void nats
    .ready()
    .then((connection) => outputCleanup.start(connection))
    .catch((error: unknown) => logger.error({ err: error }, 'the orphan-output cleanup could not start'));
} else logger.warn('no NATS_URL: outputs of jobs that fail or are cancelled after a worker stored them are not cleaned up');
logger.info({ port: server.port, metricsPort: metrics.port, bucket: config.S3_BUCKET }, 'media serving gRPC');

installShutdownHandlers(
  async () => {
    await stopSweeper();
    await outputCleanup?.stop();
    jobStatus?.close();
    await nats?.close();
    await server.shutdown(config.SHUTDOWN_GRACE_MS);
    await pool.end();
    store.close();
    await metrics.close();
    await embedded?.close();
    await telemetry.shutdown();
  },
  { logger, graceMs: config.SHUTDOWN_GRACE_MS + 5_000 },
);

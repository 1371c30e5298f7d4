import { hostname } from 'node:os';
import { followAccountDeletions } from '@atelier/account-deletion';
import { assertSchemaCurrent, createSqlPool } from '@atelier/db';
import { loadGrpcSecurity, servingOptionsOf, type CallObserver, type GrpcServerHandle } from '@atelier/grpc';
import { runService } from '@atelier/lifecycle';
import type { Logger } from '@atelier/logging';
import { startServiceMetrics, type Registry } from '@atelier/metrics';
import { NATS_HEALTH_SERVICE, checkNatsCredentials, jobsTopology, openNatsLink } from '@atelier/nats';
import { productEventsOf, productEventsRelay, registerOutboxMetrics } from '@atelier/outbox';
import type { Telemetry } from '@atelier/telemetry';
import { checkS3Credentials, mediaConfigSpec, shutdownPolicy, type MediaConfig } from './config.js';
import { MEDIA_SCHEMA, mediaMigrations } from './db/migrations/index.js';
import { JobOutputCleanup } from './background/job-output-cleanup.js';
import { grpcAssetUsage } from './peers/asset-usage.js';
import { jobsStatusLookup } from './peers/job-status-lookup.js';
import type { MediaContext } from './media-context.js';
import { startMediaServer } from './server.js';
import { ObjectStore } from './storage/object-store.js';
import { mediaAccountDeletion } from './background/account-deletion.js';
import { startUploadSweeper } from './background/upload-sweeper.js';

export type MediaAppConfig = Omit<MediaConfig, 'LOG_LEVEL' | 'SHUTDOWN_GRACE_MS' | 'METRICS_PORT'>;

export interface MediaApp {
  readonly server: GrpcServerHandle;
  /** Stops the sweeper and the cleanup, serving (graceful for graceMs), then the pool and the store. */
  stop(graceMs: number): Promise<void>;
}

/**
 * Wires the media service: the object store (the embedded one when S3_ENDPOINT is unset), the pg
 * pool, the gRPC server, the sweeper of abandoned uploads, and — with NATS — the cleanup of the
 * outputs of jobs that ended without them, the consumer of account deletions and the relay of its
 * outbox (product events).
 */
export async function startMediaApp(
  config: MediaAppConfig,
  logger: Logger,
  options: { callObserver?: CallObserver; metricsRegistry?: Registry } = {},
): Promise<MediaApp> {
  const security = loadGrpcSecurity(config);
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

  const pool = createSqlPool({ databaseUrl: config.DATABASE_URL, max: config.DB_POOL_MAX, applicationName: 'media' });
  const assetUsage = grpcAssetUsage({ jobs: config.JOBS_ADDR, community: config.COMMUNITY_ADDR }, security);
  const context: MediaContext = {
    pool,
    store,
    logger,
    productEvents: productEventsOf(config),
    uploadUrlTtlSeconds: config.UPLOAD_URL_TTL_SECONDS,
    downloadUrlTtlSeconds: config.DOWNLOAD_URL_TTL_SECONDS,
    uploadLimits: {
      uploadsPerDay: config.UPLOADS_DAILY_LIMIT,
      storedBytes: config.STORED_BYTES_LIMIT,
      storedBytesRetryAfterSeconds: config.STORED_BYTES_RETRY_AFTER_SECONDS,
    },
    uploadCompletionsMax: config.UPLOAD_COMPLETIONS_MAX,
    assetUsage,
  };
  const server = await startMediaServer(context, { ...servingOptionsOf(config, security), callObserver: options.callObserver });
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
      ? new JobOutputCleanup({
          pool,
          store,
          jobStatus: jobStatus.lookup,
          topology: jobsTopology(config.NATS_STREAM_PREFIX),
          streamReplicas: config.NATS_STREAM_REPLICAS,
          logger,
        })
      : undefined;
  // Its part of deleting accounts, from the broker's first answer on (the durable consumer catches up).
  const accountDeletions = followAccountDeletions(nats, {
    service: 'media',
    config,
    deleteUserData: mediaAccountDeletion(context),
    kept: 'media',
    logger,
  });
  // The product events of completed uploads, from the outbox to NATS; without NATS they wait in it.
  const relay = nats
    ? productEventsRelay({
        pool,
        databaseUrl: config.DATABASE_URL,
        schema: MEDIA_SCHEMA,
        link: nats,
        streamPrefix: config.NATS_STREAM_PREFIX,
        streamReplicas: config.NATS_STREAM_REPLICAS,
        logger,
      })
    : undefined;
  if (relay) await relay.start();
  else logger.warn('no NATS_URL: product events wait in the outbox until media runs with NATS');
  if (options.metricsRegistry) registerOutboxMetrics(options.metricsRegistry, pool, MEDIA_SCHEMA);
  if (nats && outputCleanup) {
    void nats
      .ready()
      .then((connection) => outputCleanup.start(connection))
      .catch((error: unknown) => logger.error({ err: error }, 'the orphan-output cleanup could not start'));
  } else logger.warn('no NATS_URL: outputs of jobs that fail or are cancelled after a worker stored them are not cleaned up');

  return {
    server,
    async stop(graceMs) {
      await stopSweeper();
      await outputCleanup?.stop();
      await accountDeletions?.stop();
      await relay?.stop();
      jobStatus?.close();
      assetUsage.close();
      await nats?.close();
      await server.shutdown(graceMs);
      await pool.end();
      store.close();
      await embedded?.close();
    },
  };
}

/** The media process (main.ts hands over once telemetry runs): the schema check, metrics, the app. */
export function runMedia(telemetry: Telemetry): Promise<void> {
  return runService({
    name: 'media',
    telemetry,
    spec: mediaConfigSpec,
    checks: [checkNatsCredentials, checkS3Credentials],
    shutdown: shutdownPolicy,
    async start(config, logger) {
      await assertSchemaCurrent(config.DATABASE_URL, { service: 'media', schema: MEDIA_SCHEMA, migrations: mediaMigrations });
      const metrics = await startServiceMetrics('media', { port: config.METRICS_PORT });
      const app = await startMediaApp(config, logger, { callObserver: metrics.grpcCalls, metricsRegistry: metrics.registry });
      logger.info({ port: app.server.port, metricsPort: metrics.port, bucket: config.S3_BUCKET }, 'media serving gRPC');
      return {
        async stop() {
          await app.stop(config.SHUTDOWN_GRACE_MS);
          await metrics.close();
        },
      };
    },
  });
}

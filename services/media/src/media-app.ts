import { followAccountDeletions } from '@atelier/account-deletion';
import { createSqlPool } from '@atelier/db';
import { loadGrpcSecurity, servingOptionsOf, type CallObserver, type GrpcServerHandle } from '@atelier/grpc';
import { Closers, runGrpcService } from '@atelier/lifecycle';
import type { Logger } from '@atelier/logging';
import type { Registry } from '@atelier/metrics';
import { checkNatsCredentials, jobsTopology, openServiceNatsLink } from '@atelier/nats';
import { productEventsOf, registerOutboxMetrics, startProductEventsRelay } from '@atelier/outbox';
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
  /**
   * Closes what it opened, the last opened first: the relay and the consumers, the sweeper, then
   * serving (graceful for graceMs) while the peer clients its calls use are still open, then the
   * pool and the store.
   */
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
  const closers = new Closers();
  // Only a local run without S3_ENDPOINT loads the embedded store (and its dependencies).
  const embeddedS3 = config.S3_ENDPOINT ? undefined : await import('./storage/embedded-s3.js');
  const embedded = await embeddedS3?.startEmbeddedS3({ directory: config.S3_EMBEDDED_DIR, port: config.S3_EMBEDDED_PORT });
  closers.add('embedded store', () => embedded?.close());
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
  closers.add('object store', () => store.close());
  await closers.opening(store.ensureBucket());

  const pool = createSqlPool({ databaseUrl: config.DATABASE_URL, max: config.DB_POOL_MAX, applicationName: 'media' });
  closers.add('pool', () => pool.end());
  // DeleteOwnAsset asks jobs and community: these clients close only once the server has drained.
  const assetUsage = grpcAssetUsage({ jobs: config.JOBS_ADDR, community: config.COMMUNITY_ADDR }, security);
  closers.add('asset usage clients', () => assetUsage.close());
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
  const server = await closers.opening(
    startMediaServer(context, { ...servingOptionsOf(config, security), callObserver: options.callObserver }),
  );
  closers.add('gRPC server', (graceMs) => server.shutdown(graceMs));
  const stopSweeper = startUploadSweeper({ pool, store, logger, maxAgeMs: config.UPLOAD_TTL_MS, intervalMs: config.SWEEP_INTERVAL_MS });
  closers.add('upload sweeper', () => stopSweeper());
  // The orphan-output cleanup listens to the jobs' lifecycle events. Media serves without NATS:
  // the cleanup starts when the broker first answers and the durable consumer catches up after.
  const nats = openServiceNatsLink({ service: 'media', config, health: server.health, logger });
  closers.add('NATS link', () => nats?.close());
  const jobStatus = nats ? jobsStatusLookup(config.JOBS_ADDR, security) : undefined;
  closers.add('job status client', () => jobStatus?.close());
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
  closers.add('orphan-output cleanup', () => outputCleanup?.stop());
  // Its part of deleting accounts, from the broker's first answer on (the durable consumer catches up).
  const accountDeletions = followAccountDeletions(nats, {
    service: 'media',
    config,
    deleteUserData: mediaAccountDeletion(context),
    kept: 'media',
    logger,
  });
  closers.add('account deletions', () => accountDeletions?.stop());
  // The product events of completed uploads, from the outbox to NATS; without NATS they wait in it.
  const relay = await startProductEventsRelay(nats, {
    service: 'media',
    pool,
    databaseUrl: config.DATABASE_URL,
    schema: MEDIA_SCHEMA,
    streamPrefix: config.NATS_STREAM_PREFIX,
    streamReplicas: config.NATS_STREAM_REPLICAS,
    logger,
  });
  closers.add('outbox relay', () => relay?.stop());
  if (options.metricsRegistry) registerOutboxMetrics(options.metricsRegistry, pool, MEDIA_SCHEMA);
  if (nats && outputCleanup) {
    void nats
      .ready()
      .then((connection) => outputCleanup.start(connection))
      .catch((error: unknown) => logger.error({ err: error }, 'the orphan-output cleanup could not start'));
  } else logger.warn('no NATS_URL: outputs of jobs that fail or are cancelled after a worker stored them are not cleaned up');

  return {
    server,
    stop: (graceMs) => closers.close(graceMs),
  };
}

/** The media process (main.ts hands over once telemetry runs). */
export function runMedia(telemetry: Telemetry): Promise<void> {
  return runGrpcService({
    name: 'media',
    telemetry,
    spec: mediaConfigSpec,
    checks: [checkNatsCredentials, checkS3Credentials],
    shutdown: shutdownPolicy,
    schema: { service: 'media', schema: MEDIA_SCHEMA, migrations: mediaMigrations },
    start: (config, logger, metrics) =>
      startMediaApp(config, logger, { callObserver: metrics.grpcCalls, metricsRegistry: metrics.registry }),
    describe: (config) => ({ bucket: config.S3_BUCKET }),
  });
}

import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { followAccountDeletions } from '@atelier/account-deletion';
import { catalogV1, mediaV1, petsV1 } from '@atelier/contracts';
import { NotificationListener, createSqlPool } from '@atelier/db';
import { createServiceClient, loadGrpcSecurity, servingOptionsOf, type GrpcServerHandle } from '@atelier/grpc';
import { runGrpcService } from '@atelier/lifecycle';
import type { Logger } from '@atelier/logging';
import { createServiceMetrics, type Registry, type ServiceMetrics } from '@atelier/metrics';
import {
  NATS_HEALTH_SERVICE,
  checkNatsCredentials,
  ensureAccountEventsStream,
  ensureJobStreams,
  ensureProductEventsStream,
  ensureOpsEventsStream,
  jetstream,
  jetstreamManager,
  jobsTopology,
  openNatsLink,
  type JetStreamClient,
  type NatsConnection,
  type NatsLink,
} from '@atelier/nats';
import { UserRefKey } from '@atelier/outbox';
import type { Telemetry } from '@atelier/telemetry';
import { watchSecretFile } from '@atelier/config';
import { parseKekRing } from './domain/kek-ring.js';
import { checkQuotaLimits, checkRetention, jobsConfigSpec, shutdownPolicy, type JobsConfig } from './config.js';
import { JOBS_SCHEMA, jobsMigrations } from './db/migrations/index.js';
import { BudgetExhaustionCache } from './db/budget-exhaustion-cache.js';
import { CatalogCache } from './peers/catalog-cache.js';
import { catalogChangesListener } from './background/catalog-changes-listener.js';
import { createRegistry } from './definitions/index.js';
import { inputAssetLookups } from './peers/input-asset-lookups.js';
import { grpcPetDirectory } from './peers/pet-directory.js';
import { PetVisibilityCache } from './peers/pet-visibility-cache.js';
import type { OutboxSubjects } from './db/job-row.js';
import { productEventSubjects } from './db/outbox-payload-sql.js';
import type { JobsContext } from './jobs-context.js';
import { readQueueStats } from './db/queue-stats-sql.js';
import { createTransitionBatches } from './db/transitions/transition-batches.js';
import { JobsMetrics } from './jobs-metrics.js';
import { ReconciliationMetrics } from './reconciliation-metrics.js';
import { selectOpenFindingCounts, selectReconciliationCoverage } from './db/reconciliation-sql.js';
import { JobWatchHub } from './announce/job-watch-hub.js';
import { OutboxRelay } from './background/outbox-relay.js';
import { DispatchHandOff } from './background/dispatch-hand-off.js';
import { claimedJobOf, observeGates } from './rpc/claim-job.js';
import { WaitingWorkers } from './announce/waiting-workers.js';
import { jobsAccountDeletion } from './background/account-deletion.js';
import { OutboxWakeups } from './background/outbox-wakeups.js';
import { JobChangeNotices } from './background/job-change-notices.js';
import { LeaseReaper } from './background/lease-reaper.js';
import { startProviderGateWatch } from './background/provider-gate-watch.js';
import { ProviderGateMetrics } from './provider-gates-metrics.js';
import { StaleDispatchSweeper } from './background/stale-dispatch-sweeper.js';
import { StartDeadlineSweeper } from './background/start-deadline-sweeper.js';
import { RetentionPruner } from './background/retention-pruner.js';
import { retentionPrunedCounter } from './background/retention-metrics.js';
import { retentionPeriodsOf } from './background/retention-periods.js';
import { grpcInputImageRemover } from './peers/input-image-remover.js';
import { startJobsServer } from './server.js';

export type JobsAppConfig = Omit<JobsConfig, 'LOG_LEVEL' | 'SHUTDOWN_GRACE_MS' | 'METRICS_PORT'>;

export interface JobsApp {
  readonly server: GrpcServerHandle;
  readonly context: JobsContext;
  readonly relay: OutboxRelay;
  /** Hands dispatches to the workers waiting at this replica (AwaitJobs) before the relay publishes the rest. */
  readonly handOff: DispatchHandOff;
  readonly reaper: LeaseReaper;
  readonly dispatchSweeper: StaleDispatchSweeper;
  readonly deadlineSweeper: StartDeadlineSweeper;
  readonly retention: RetentionPruner;
  /** The broker: jobs serves without it (reads, creates, transitions); only the relay waits for it. */
  readonly nats: NatsLink;
  /** Every series of this service: serve it at /metrics. */
  readonly metricsRegistry: Registry;
  /** Stops serving (graceful for graceMs), then the relay, reaper, sweepers, pruner, connections. */
  stop(graceMs: number): Promise<void>;
}

/**
 * Wires the jobs service: registry (validated here — a bad definition stops start-up), pg pool,
 * peers, the NATS link (streams declared idempotently whenever it connects; the service does not
 * wait for it), the outbox relay with its wake-ups, the lease reaper and the gRPC server.
 */
export async function startJobsApp(
  config: JobsAppConfig,
  logger: Logger,
  options: { host?: string; metrics?: ServiceMetrics } = {},
): Promise<JobsApp> {
  const security = loadGrpcSecurity(config);
  const registry = createRegistry();
  // Pipelined: a quota batch's transaction is one write and one wait (db/transitions/create-sql.ts).
  const pool = createSqlPool({ databaseUrl: config.DATABASE_URL, max: config.DB_POOL_MAX, applicationName: 'jobs', pipeline: true });
  const serviceMetrics = options.metrics ?? createServiceMetrics('jobs');
  const metricsRegistry = serviceMetrics.registry;
  const metrics = new JobsMetrics(metricsRegistry, () => readQueueStats(pool));
  const gateMetrics = new ProviderGateMetrics(metricsRegistry);
  const topology = jobsTopology(config.NATS_STREAM_PREFIX);
  const streamOptions = { replicas: config.NATS_STREAM_REPLICAS };
  // Set once serving; the link may come up (or go down) before or after.
  const serverRef: { current?: GrpcServerHandle } = {};
  const catalogClient = createServiceClient(catalogV1.CatalogServiceClient, config.CATALOG_ADDR, security);
  const catalogCache = new CatalogCache(catalogClient, {
    ttlMs: config.CATALOG_CACHE_TTL_MS,
    maxEntries: config.CATALOG_CACHE_MAX_ENTRIES,
  });
  const catalogChanges = catalogChangesListener(config.NATS_STREAM_PREFIX, catalogCache, logger);
  // NATS is the doorbell, not the truth: jobs serves (and the outbox fills) while it is away.
  // The relay publishes on all of them: the job streams, the account events, the product events.
  const declareStreams = async (connection: NatsConnection) => {
    const jsm = await jetstreamManager(connection);
    await ensureJobStreams(jsm, topology, streamOptions);
    await ensureAccountEventsStream(jsm, topology, streamOptions);
    await ensureProductEventsStream(jsm, topology, streamOptions);
    await ensureOpsEventsStream(jsm, topology, streamOptions);
  };
  const nats = openNatsLink({
    servers: config.NATS_URL,
    name: `jobs@${hostname()}`,
    credentials: config,
    logger,
    onConnected: async (connection) => {
      catalogChanges.follow(connection);
      await declareStreams(connection);
    },
    onStateChange: (up) => {
      // Catalog's notices of the time the link was down (or not yet up) were missed.
      if (up) catalogCache.clear();
      serverRef.current?.health.setStatus(NATS_HEALTH_SERVICE, up ? 'SERVING' : 'NOT_SERVING');
    },
  });
  let js: { connection: unknown; client: JetStreamClient } | undefined;
  const broker = () => {
    const connection = nats.up() ? nats.connection() : undefined;
    if (!connection) return undefined;
    if (js?.connection !== connection) js = { connection, client: jetstream(connection) };
    return js.client;
  };

  const subjects: OutboxSubjects = {
    dispatchInteractive: topology.dispatchSubject('interactive'),
    dispatchBackground: topology.dispatchSubject('background'),
    eventPrefix: topology.eventSubject(''),
    providerCancel: topology.controlSubject('provider-cancel'),
    accountDeleted: topology.accountDeletedSubject,
    productEvents: productEventSubjects(topology.productEventSubject(''), new UserRefKey(config.PRODUCT_EVENTS_USER_KEY)),
  };
  const relay = new OutboxRelay({
    pool,
    broker,
    logger,
    relayId: `relay/${hostname()}/${process.pid}/${randomBytes(3).toString('hex')}`,
    pollIntervalMs: config.OUTBOX_POLL_INTERVAL_MS,
    lockTimeoutMs: config.OUTBOX_LOCK_TIMEOUT_MS,
    maxAttempts: config.OUTBOX_MAX_ATTEMPTS,
    publishLag: metrics.outboxPublishLag,
    restoreStreams: async () => {
      const connection = nats.connection();
      if (!connection) throw new Error('not connected to NATS');
      await declareStreams(connection);
    },
  });
  // One LISTEN connection for this replica: outbox wake-ups and job changes from the others.
  const listener = new NotificationListener({ databaseUrl: config.DATABASE_URL, logger, applicationName: 'jobs-listener' });
  const wakeups = new OutboxWakeups({ pool, listener, logger, onWake: () => relay.wake() });
  const onOutboxWrite = () => wakeups.signal();
  const watchHub = new JobWatchHub();
  const jobChanges = new JobChangeNotices({ pool, listener, logger, onRemoteChange: (jobId) => watchHub.remoteChanged(jobId) });
  watchHub.publishTo((jobId) => jobChanges.publish(jobId));
  await listener.start();

  const mediaClient = createServiceClient(mediaV1.MediaServiceClient, config.MEDIA_ADDR, security);
  // The pet service is not ours: its certificate proves the identity configured for it.
  const petClient = createServiceClient(petsV1.PetDirectoryServiceClient, config.PET_DIRECTORY_ADDR, security, {
    serverName: config.PET_DIRECTORY_IDENTITY,
  });
  const pets = new PetVisibilityCache(grpcPetDirectory(petClient, { deadlineMs: config.PET_DIRECTORY_DEADLINE_MS }), {
    ttlMs: config.PET_DIRECTORY_CACHE_TTL_MS,
    maxEntries: config.PET_DIRECTORY_CACHE_MAX_ENTRIES,
  });
  const peers = { catalog: catalogCache, media: mediaClient, inputAssets: inputAssetLookups(mediaClient), pets };
  const outboxSubjects = () => {
    const claimFor = relay.claimLane();
    return claimFor ? { ...subjects, claimFor } : subjects;
  };
  // Users' vendor keys are sealed under these; a rotated Secret is read again without a restart.
  const keks = config.CREDENTIALS_KEK_FILE
    ? watchSecretFile(config.CREDENTIALS_KEK_FILE, {
        parse: parseKekRing,
        onError: (error) => logger.error({ err: error }, 'CREDENTIALS_KEK_FILE changed but cannot be used: the keys in use stay'),
        onChange: (ring) => logger.info({ currentKekId: ring.current.id, kekIds: [...ring.byId.keys()] }, 'key-encryption keys read again'),
      })
    : undefined;
  const context: JobsContext = {
    pool,
    batches: createTransitionBatches(pool, outboxSubjects, config.LEASE_TTL_MS),
    outboxSubjects,
    relay,
    registry,
    peers,
    subjects,
    logger,
    watchHub,
    quota: {
      dailyLimit: config.QUOTA_DAILY_LIMIT,
      monthlyLimit: config.QUOTA_MONTHLY_LIMIT,
      maxInFlight: config.QUOTA_MAX_IN_FLIGHT,
      inFlightRetryAfterSeconds: config.QUOTA_IN_FLIGHT_RETRY_AFTER_SECONDS,
    },
    leaseTtlMs: config.LEASE_TTL_MS,
    watchRereadMs: config.WATCH_REREAD_MS,
    onOutboxWrite,
    metrics,
    reconciliation: {
      settleMs: config.RECONCILIATION_SETTLE_MS,
      maxWindowMs: config.RECONCILIATION_MAX_WINDOW_MS,
      leaseMs: config.RECONCILIATION_LEASE_MS,
    },
    reconciliationMetrics: new ReconciliationMetrics(metricsRegistry, {
      openFindings: () => selectOpenFindingCounts(pool),
      coverage: () => selectReconciliationCoverage(pool),
    }),
    credentials: { keks: keks ? () => keks.current() : undefined, maxPerUser: config.CREDENTIALS_MAX_PER_USER },
    gateMetrics,
    budgets: new BudgetExhaustionCache(pool),
    waitingWorkers: new WaitingWorkers(),
  };
  const handOff = new DispatchHandOff({
    pool,
    waiting: context.waitingWorkers,
    leaseTtlMs: config.LEASE_TTL_MS,
    subjects,
    outboxSubjects,
    announceTo: context,
    claimedJobOf: (row) => claimedJobOf(context, row),
    onClaimed: (rows) =>
      observeGates(
        context,
        rows.map((job) => ({ changed: true, job })),
      ),
    logger,
  });
  relay.handOffTo((rows) => handOff.deliver(rows));
  metrics.waitingWorkers = () => context.waitingWorkers.size;
  const reaper = new LeaseReaper({
    pool,
    registry,
    subjects,
    logger,
    announceTo: context,
    intervalMs: config.REAPER_INTERVAL_MS,
  });
  const dispatchSweeper = new StaleDispatchSweeper({
    pool,
    subjects,
    logger,
    onOutboxWrite,
    intervalMs: config.DISPATCH_SWEEP_INTERVAL_MS,
    staleAfterMs: config.DISPATCH_STALE_AFTER_MS,
    onRedispatch: (count) => metrics.redispatched.inc(count),
  });
  const deadlineSweeper = new StartDeadlineSweeper({
    pool,
    subjects: outboxSubjects,
    logger,
    announceTo: context,
    intervalMs: config.START_DEADLINE_SWEEP_INTERVAL_MS,
  });
  const retentionPruned = retentionPrunedCounter(metricsRegistry);
  const retention = new RetentionPruner({
    pool,
    logger,
    intervalMs: config.RETENTION_INTERVAL_MS,
    outboxRetentionMs: config.OUTBOX_RETENTION_MS,
    jobEventsRetentionDays: config.JOB_EVENTS_RETENTION_DAYS,
    batchSize: config.RETENTION_BATCH_SIZE,
    redactionBatchSize: config.RETENTION_REDACTION_BATCH_SIZE,
    batchPauseMs: config.RETENTION_BATCH_PAUSE_MS,
    periods: retentionPeriodsOf(registry.all()),
    inputImages: grpcInputImageRemover(mediaClient),
    onPruned: (table, count) => retentionPruned.inc({ table }, count),
  });
  const server = await startJobsServer(context, {
    ...servingOptionsOf(config, security),
    host: options.host,
    callObserver: serviceMetrics.grpcCalls,
  });
  serverRef.current = server;
  server.health.setStatus(NATS_HEALTH_SERVICE, nats.up() ? 'SERVING' : 'NOT_SERVING');
  relay.start();
  // Its part of deleting accounts: from the broker's first answer on, the durable consumer catches up.
  const accountDeletions = followAccountDeletions(nats, {
    service: 'jobs',
    config,
    deleteUserData: jobsAccountDeletion(context),
    kept: 'jobs',
    logger,
  });
  reaper.start();
  const gateWatch = startProviderGateWatch({
    pool,
    metrics: gateMetrics,
    warningSubject: topology.opsEventSubject('provider_budget_warning'),
    onOutboxWrite,
    logger,
    intervalMs: config.PROVIDER_GATE_WATCH_INTERVAL_MS,
  });
  dispatchSweeper.start();
  deadlineSweeper.start();
  retention.start();

  return {
    server,
    context,
    relay,
    handOff,
    reaper,
    dispatchSweeper,
    deadlineSweeper,
    retention,
    nats,
    metricsRegistry,
    async stop(graceMs) {
      // Waiting workers are answered now: the shutdown need not wait out their long polls.
      context.waitingWorkers.close();
      await server.shutdown(graceMs);
      await accountDeletions.stop();
      await reaper.stop();
      await gateWatch.stop();
      await dispatchSweeper.stop();
      await deadlineSweeper.stop();
      await retention.stop();
      await relay.stop();
      wakeups.stop();
      jobChanges.stop();
      await listener.stop();
      catalogClient.close();
      peers.media.close();
      petClient.close();
      keks?.close();
      await nats.close();
      await pool.end();
    },
  };
}

/** The jobs process (main.ts hands over once telemetry runs). */
export function runJobs(telemetry: Telemetry): Promise<void> {
  return runGrpcService({
    name: 'jobs',
    telemetry,
    spec: jobsConfigSpec,
    checks: [checkNatsCredentials, checkRetention, checkQuotaLimits],
    shutdown: shutdownPolicy,
    schema: { service: 'jobs', schema: JOBS_SCHEMA, migrations: jobsMigrations },
    start: (config, logger, metrics) => startJobsApp(config, logger, { metrics }),
    describe: (config) => ({ streamPrefix: config.NATS_STREAM_PREFIX }),
  });
}

import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import { hostname } from 'node:os';
import {
  catalogV1,
  jobsCredentialsV1,
  jobsDispatchGatesV1,
  jobsEventsV1,
  jobsExecutionV1,
  jobsReconciliationV1,
  jobsUsageV1,
  mediaV1,
} from '@atelier/contracts';
import { createServiceClient, loadGrpcSecurity } from '@atelier/grpc';
import { runService } from '@atelier/lifecycle';
import type { Logger } from '@atelier/logging';
import {
  checkNatsCredentials,
  ensureControlConsumer,
  ensureJobStreams,
  ensureWorkerConsumer,
  jetstream,
  jetstreamManager,
  jobsTopology,
  openNatsLink,
  type JobQueueName,
  type NatsConnection,
} from '@atelier/nats';
import type { Telemetry } from '@atelier/telemetry';
import { shutdownPolicy, workerConfigSpec, type WorkerConfig } from './config.js';
import { startWorkerServer } from './server.js';
import { crashPointsFor } from './domain/crash-points.js';
import { canaryExecutor } from './executors/canary-executor.js';
import { executorsByJobType } from './executors/executor-registry.js';
import { imageExecutor } from './executors/image-executor.js';
import { OutputDecoder } from './executors/output-decoder.js';
import { AttemptClock } from './domain/attempt-clock.js';
import { createExecutionBatches } from './peers/execution-batches.js';
import { ProviderCallLedger } from './peers/provider-call-ledger.js';
import { JobRunner } from './attempt/job-runner.js';
import { outputHostsFrom } from './peers/provider/output-limits.js';
import { CatalogCoverageCheck } from './background/catalog-coverage-check.js';
import { providersByCode } from './peers/provider/providers-by-code.js';
import { ProviderClients, type ProviderEndpoint } from './peers/provider/provider-clients.js';
import { platformKeySource } from './peers/provider/platform-key.js';
import { jobCredentials } from './peers/job-credentials.js';
import type { ProviderClient } from './peers/provider/provider-client.js';
import { providerPermitsFor } from './peers/provider/provider-permits-for.js';
import { rateLimitedProviderClient } from './peers/provider/rate-limited-provider-client.js';
import { ProviderCancelConsumer } from './background/provider-cancel-consumer.js';
import { QueueConsumer } from './background/queue-consumer.js';
import { JobAwaiter } from './background/job-awaiter.js';
import { startVendorReconciliation } from './background/vendor-reconciliation.js';
import { listVendorPredictions } from './peers/provider/prediction-list.js';
import { WorkerMetrics } from './worker-metrics.js';

export interface WorkerApp {
  readonly workerId: string;
  readonly metricsServer: Server;
  readonly nats: NatsConnection;
  /** Stops pulling, drains running jobs within the drain timeout, closes connections. */
  stop(): Promise<void>;
}

/**
 * Wires a worker: clients for the jobs execution API and media, provider clients by provider code,
 * executors by job type, one consumer per dispatch queue and one for provider cancels (declared
 * idempotently), and the subscription that pushes cancellations to running attempts.
 */
/** How long a stopping worker waits for its usage-ledger calls to be written. */
const LEDGER_SHUTDOWN_GRACE_MS = 3_000;

export async function startWorkerApp(config: Omit<WorkerConfig, 'LOG_LEVEL'>, logger: Logger): Promise<WorkerApp> {
  const workerId = `${hostname()}/${process.pid}/${randomBytes(3).toString('hex')}`;
  const metrics = new WorkerMetrics();
  const topology = jobsTopology(config.NATS_STREAM_PREFIX);
  const ackWait: Record<JobQueueName, number> = {
    interactive: config.WORKER_ACK_WAIT_INTERACTIVE_MS,
    background: config.WORKER_ACK_WAIT_BACKGROUND_MS,
  };
  // Declared here too (idempotently), so a worker does not depend on jobs having started first,
  // and again on every reconnection and whenever JetStream reports them gone.
  const declareOn = async (connection: NatsConnection) => {
    const jsm = await jetstreamManager(connection);
    await ensureJobStreams(jsm, topology, { replicas: config.NATS_STREAM_REPLICAS });
    for (const queue of ['interactive', 'background'] as const) {
      await ensureWorkerConsumer(jsm, topology, queue, {
        ackWaitMs: ackWait[queue],
        maxDeliver: config.WORKER_MAX_DELIVER,
        maxAckPending: config.WORKER_MAX_ACK_PENDING,
      });
    }
    await ensureControlConsumer(jsm, topology, 'provider-cancel', { ackWaitMs: 30_000, maxDeliver: -1 });
  };
  // A worker has nothing to do without NATS: it waits for the broker (forever, also at start-up),
  // alive (/healthz) but not ready (/readyz) meanwhile.
  let consuming = false;
  const security = loadGrpcSecurity(config);
  const platformKey = platformKeySource(
    { file: config.PROVIDER_API_KEY_FILE, fallback: config.PROVIDER_API_KEY, pollIntervalMs: config.PROVIDER_API_KEY_POLL_MS },
    logger,
  );
  const endpoints: ReadonlyMap<string, ProviderEndpoint> = providersByCode({
    sim: {
      baseUrl: config.PROVIDER_URL,
      output: { hosts: outputHostsFrom(config.PROVIDER_OUTPUT_HOSTS, config.PROVIDER_URL), maxBytes: config.PROVIDER_OUTPUT_MAX_BYTES },
    },
  });
  const credentialsClient = createServiceClient(jobsCredentialsV1.ProviderCredentialsServiceClient, config.JOBS_ADDR, security, {
    defaultDeadlineMs: 10_000,
  });
  // Calls on the platform's key take permits of its provider's request-rate cap, shared by every
  // pod, through jobs (a user's own key is the user's vendor account: not ours to cap).
  const gates = createServiceClient(jobsDispatchGatesV1.ProviderDispatchServiceClient, config.JOBS_ADDR, security, {
    defaultDeadlineMs: 5_000,
  });
  const limited = (providerCode: string, client: ProviderClient) =>
    rateLimitedProviderClient(client, providerPermitsFor({ gates, providerCode, workerId, logger, metrics }));
  const clients = new ProviderClients(endpoints, () => platformKey.current(), jobCredentials(credentialsClient, workerId), limited);
  const providers = clients.platform;
  const catalog = createServiceClient(catalogV1.CatalogServiceClient, config.CATALOG_ADDR, security, { defaultDeadlineMs: 5_000 });
  // Ready also means able to run every enabled model (checked once NATS is up, below).
  const coverage = new CatalogCoverageCheck({ catalog, providerCodes: new Set(providers.keys()), logger });
  const link = openNatsLink({
    servers: config.NATS_URL,
    name: `worker ${workerId}`,
    credentials: config,
    logger,
    onConnected: declareOn,
  });
  const metricsServer = await startWorkerServer(
    metrics.registry,
    config.HTTP_PORT,
    () => consuming && link.up() && coverage.covers(),
    () => ({ catalog: coverage.status() }),
  );
  const nats = await link.ready();
  // When JetStream says one consumer or the stream is gone, all of this worker's consumers are
  // declared again and the other pulls reopened too: a deleted stream takes every consumer with
  // it, but only the pull that was waiting at that moment may hear of it.
  const pulls: { restartPull(): void }[] = [];
  const declareTopologyFor = (origin: () => { restartPull(): void } | undefined) => async () => {
    await declareOn(nats);
    for (const pull of pulls) if (pull !== origin()) pull.restartPull();
  };

  const execution = createServiceClient(jobsExecutionV1.JobExecutionServiceClient, config.JOBS_ADDR, security, {
    defaultDeadlineMs: 10_000,
  });
  const media = createServiceClient(mediaV1.MediaServiceClient, config.MEDIA_ADDR, security, { defaultDeadlineMs: 10_000 });
  // The usage ledger: every vendor call, recorded through jobs (docs/usage-ledger.md).
  const usage = createServiceClient(jobsUsageV1.ProviderUsageServiceClient, config.JOBS_ADDR, security, { defaultDeadlineMs: 10_000 });
  const calls = new ProviderCallLedger({
    usage,
    logger,
    calls: metrics.providerCalls,
  });
  // Not awaited: a worker processes jobs while catalog is away; /readyz reports what it found.
  void coverage.start(nats, config.NATS_STREAM_PREFIX);
  const crashPoint = crashPointsFor(config.WORKER_CRASH_POINT);
  const decoder = new OutputDecoder({ idleMs: config.WORKER_DECODER_IDLE_MS });
  const executors = executorsByJobType({
    image: imageExecutor({
      clients,
      media,
      decoder,
      pollIntervalMs: config.WORKER_POLL_INTERVAL_MS,
      crashPoint,
      logger,
      calls,
      onOutputRejected: (model, reason) => metrics.outputRejections.inc({ model, reason }),
    }),
    canary: canaryExecutor,
  });
  const clock = new AttemptClock({
    workerId,
    heartbeats: async (beats, deadlineMs) => (await execution.heartbeats({ beats }, { deadlineMs })).results,
    logger,
  });
  const runner = new JobRunner({
    execution,
    batches: createExecutionBatches(execution),
    media,
    executors,
    providers: clients,
    workerId,
    logger,
    metrics,
    crashPoint,
    clock,
    timeoutCapMs: config.WORKER_TIMEOUT_CAP_MS,
    calls,
  });

  const js = jetstream(nats);
  const consumers: QueueConsumer[] = (['interactive', 'background'] as const).map(
    (queue, i) =>
      new QueueConsumer({
        js,
        topology,
        queue,
        concurrency: queue === 'interactive' ? config.WORKER_CONCURRENCY_INTERACTIVE : config.WORKER_CONCURRENCY_BACKGROUND,
        ackWaitMs: ackWait[queue],
        pullExpiresMs: config.WORKER_PULL_EXPIRES_MS,
        handle: (dispatch, drain) => runner.run(dispatch, drain),
        logger,
        metrics,
        restoreTopology: declareTopologyFor(() => consumers[i]),
      }),
  );
  const providerCancels: ProviderCancelConsumer = new ProviderCancelConsumer({
    js,
    topology,
    providers: clients,
    logger,
    calls,
    pullExpiresMs: config.WORKER_PULL_EXPIRES_MS,
    restoreTopology: declareTopologyFor(() => providerCancels),
  });
  pulls.push(...consumers, providerCancels);
  // A cancel is pushed: every worker hears every cancellation and stops the attempt if it runs
  // it here (most are not). Plain NATS, not a durable consumer: a worker that misses one while
  // disconnected learns it from its next progress report or heartbeat.
  const cancellations = nats.subscribe(topology.eventSubject('cancelled'), {
    callback: (error, message) => {
      if (error) return;
      try {
        runner.stop(jobsEventsV1.JobLifecycleEvent.fromJSON(message.json()).jobId, 'cancelled');
      } catch (decodeError) {
        logger.warn({ err: decodeError }, 'undecodable cancellation event');
      }
    },
  });

  for (const consumer of consumers) await consumer.start();
  await providerCancels.start();
  // Jobs created at the jobs replica this worker waits at come straight from it, claimed already.
  const awaiter =
    config.WORKER_AWAIT_JOBS && config.WORKER_CONCURRENCY_INTERACTIVE + config.WORKER_CONCURRENCY_BACKGROUND > 0
      ? new JobAwaiter({
          execution,
          workerId,
          queues: { interactive: consumers[0]!, background: consumers[1]! },
          run: (claimed, drain) => runner.runHandedOver(claimed, drain),
          waitMs: config.WORKER_AWAIT_WAIT_MS,
          calls: config.WORKER_AWAIT_CALLS,
          logger,
          metrics,
        })
      : undefined;
  awaiter?.start();
  consuming = true;
  // Reconciliation with the vendor: the platform account's predictions (the platform key's).
  const reconciliation = createServiceClient(jobsReconciliationV1.ProviderReconciliationServiceClient, config.JOBS_ADDR, security, {
    defaultDeadlineMs: 30_000,
  });
  const reconciler = startVendorReconciliation({
    reconciliation,
    vendors: new Map([
      [
        'sim',
        (window, signal) => listVendorPredictions({ baseUrl: config.PROVIDER_URL, apiKey: platformKey.current().apiKey }, window, signal),
      ],
    ]),
    workerId,
    intervalMs: config.RECONCILE_INTERVAL_MS,
    logger,
  });

  return {
    workerId,
    metricsServer,
    nats,
    async stop() {
      consuming = false;
      await awaiter?.stop();
      await Promise.all(consumers.map((consumer) => consumer.drain(config.WORKER_DRAIN_TIMEOUT_MS)));
      await decoder.stop();
      await providerCancels.stop();
      // Within the shutdown's margin (config.ts): jobs away longer loses these calls (logged).
      await calls.flushAll(LEDGER_SHUTDOWN_GRACE_MS);
      await reconciler.stop();
      reconciliation.close();
      cancellations.unsubscribe();
      coverage.stop();
      catalog.close();
      clock.stop();
      execution.close();
      usage.close();
      credentialsClient.close();
      platformKey.close();
      gates.close();
      media.close();
      await link.close();
      await new Promise((resolve) => metricsServer.close(resolve));
    },
  };
}

/** The worker process (main.ts hands over once telemetry runs): the app; SIGTERM drains its jobs. */
export function runWorker(telemetry: Telemetry): Promise<void> {
  return runService({
    name: 'worker',
    telemetry,
    spec: workerConfigSpec,
    checks: [checkNatsCredentials],
    shutdown: shutdownPolicy,
    async start(config, logger) {
      const app = await startWorkerApp(config, logger);
      logger.info(
        {
          workerId: app.workerId,
          interactive: config.WORKER_CONCURRENCY_INTERACTIVE,
          background: config.WORKER_CONCURRENCY_BACKGROUND,
          metricsPort: config.HTTP_PORT,
        },
        'worker consuming',
      );
      return app;
    },
  });
}

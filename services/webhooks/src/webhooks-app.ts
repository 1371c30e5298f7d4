import { followAccountDeletions } from '@atelier/account-deletion';
import { createSqlPool } from '@atelier/db';
import { loadGrpcSecurity, servingOptionsOf, type CallObserver, type GrpcServerHandle } from '@atelier/grpc';
import { Closers, runGrpcService } from '@atelier/lifecycle';
import type { Logger } from '@atelier/logging';
import type { Registry } from '@atelier/metrics';
import { checkNatsCredentials, jobsTopology, openServiceNatsLink } from '@atelier/nats';
import type { Telemetry } from '@atelier/telemetry';
import { checkLeaseOutlastsAttempt, webhooksConfigSpec, shutdownPolicy, type WebhooksConfig } from './config.js';
import { WEBHOOKS_SCHEMA, webhooksMigrations } from './db/migrations/index.js';
import { DeliveryMetrics } from './delivery/delivery-metrics.js';
import { startDeliverySender } from './delivery/delivery-sender.js';
import { LifecycleFanout } from './fanout/lifecycle-fanout.js';
import { jobOwnerLookup } from './peers/job-owner-lookup.js';
import { startWebhooksServer } from './server.js';
import { webhooksAccountDeletion } from './background/account-deletion.js';
import type { WebhooksContext } from './webhooks-context.js';

export type WebhooksAppConfig = Omit<WebhooksConfig, 'LOG_LEVEL' | 'SHUTDOWN_GRACE_MS' | 'METRICS_PORT'>;

export interface WebhooksApp {
  readonly server: GrpcServerHandle;
  /** Stops the consumers, serving, then the sender (attempts in flight are recorded) and the pool. */
  stop(graceMs: number): Promise<void>;
}

/**
 * Wires the webhooks service: the pg pool, the gRPC server, the sender of due deliveries and —
 * once NATS answers — the fan-out of the lifecycle events into deliveries.
 */
export async function startWebhooksApp(
  config: WebhooksAppConfig,
  logger: Logger,
  options: { host?: string; callObserver?: CallObserver; registry?: Registry } = {},
): Promise<WebhooksApp> {
  const security = loadGrpcSecurity(config);
  const closers = new Closers();
  const pool = createSqlPool({ databaseUrl: config.DATABASE_URL, applicationName: 'webhooks' });
  closers.add('pool', () => pool.end());
  const sender = startDeliverySender({
    pool,
    logger,
    allowedHosts: config.WEBHOOK_ALLOWED_HOSTS,
    retryScheduleMs: config.WEBHOOK_RETRY_SCHEDULE_MS,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    leaseMs: config.WEBHOOK_LEASE_MS,
    pollIntervalMs: config.WEBHOOK_POLL_INTERVAL_MS,
    batchSize: config.WEBHOOK_CONCURRENCY,
    metrics: options.registry ? new DeliveryMetrics(options.registry) : undefined,
  });
  closers.add('delivery sender', () => sender.stop());
  const context: WebhooksContext = {
    pool,
    logger,
    allowedHosts: config.WEBHOOK_ALLOWED_HOSTS,
    endpointsPerUser: config.WEBHOOK_ENDPOINTS_PER_USER,
    onDue: () => sender.wake(),
  };
  const server = await closers.opening(
    startWebhooksServer(context, {
      ...servingOptionsOf(config, security),
      host: options.host,
      callObserver: options.callObserver,
    }),
  );
  closers.add('gRPC server', (graceMs) => server.shutdown(graceMs));
  // Webhooks serves its API without NATS; the fan-out starts when the broker first answers and
  // the durable consumer catches up after.
  const nats = openServiceNatsLink({ service: 'webhooks', config, health: server.health, logger });
  closers.add('NATS link', () => nats.close());
  const owners = jobOwnerLookup(config.JOBS_ADDR, security);
  closers.add('job owner client', () => owners.close());
  const fanout = new LifecycleFanout({
    pool,
    topology: jobsTopology(config.NATS_STREAM_PREFIX),
    streamReplicas: config.NATS_STREAM_REPLICAS,
    jobOwner: owners.lookup,
    logger,
    onDeliveries: () => sender.wake(),
  });
  void nats
    .ready()
    .then((connection) => fanout.start(connection))
    .catch((error: unknown) => logger.error({ err: error }, 'the webhook fan-out could not start'));
  closers.add('fan-out', () => fanout.stop());
  // Its part of deleting accounts: the user's endpoints, deliveries and attempts.
  const accountDeletions = followAccountDeletions(nats, {
    service: 'webhooks',
    config,
    deleteUserData: webhooksAccountDeletion({ pool, logger }),
    kept: 'endpoints',
    logger,
  });
  closers.add('account deletions', () => accountDeletions.stop());

  return {
    server,
    stop: (graceMs) => closers.close(graceMs),
  };
}

/** The webhooks process (main.ts hands over once telemetry runs). */
export function runWebhooks(telemetry: Telemetry): Promise<void> {
  return runGrpcService({
    name: 'webhooks',
    telemetry,
    spec: webhooksConfigSpec,
    checks: [checkNatsCredentials, checkLeaseOutlastsAttempt],
    shutdown: shutdownPolicy,
    schema: { service: 'webhooks', schema: WEBHOOKS_SCHEMA, migrations: webhooksMigrations },
    start: (config, logger, metrics) => startWebhooksApp(config, logger, { callObserver: metrics.grpcCalls, registry: metrics.registry }),
    describe: (config) => ({ jobsAddr: config.JOBS_ADDR, allowedHosts: [...config.WEBHOOK_ALLOWED_HOSTS] }),
  });
}

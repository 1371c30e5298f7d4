import { hostname } from 'node:os';
import { followAccountDeletions } from '@atelier/account-deletion';
import { assertSchemaCurrent, createSqlPool } from '@atelier/db';
import { loadGrpcSecurity, servingOptionsOf, type CallObserver, type GrpcServerHandle } from '@atelier/grpc';
import { runService } from '@atelier/lifecycle';
import type { Logger } from '@atelier/logging';
import { startServiceMetrics, type Registry } from '@atelier/metrics';
import { NATS_HEALTH_SERVICE, checkNatsCredentials, jobsTopology, openNatsLink } from '@atelier/nats';
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
  /** Stops the fan-out and the sender (attempts in flight are recorded), serving, then the pool. */
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
  const pool = createSqlPool({ databaseUrl: config.DATABASE_URL, applicationName: 'webhooks' });
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
  const context: WebhooksContext = {
    pool,
    logger,
    allowedHosts: config.WEBHOOK_ALLOWED_HOSTS,
    endpointsPerUser: config.WEBHOOK_ENDPOINTS_PER_USER,
    onDue: () => sender.wake(),
  };
  const server = await startWebhooksServer(context, {
    ...servingOptionsOf(config, security),
    host: options.host,
    callObserver: options.callObserver,
  }).catch(async (error: unknown) => {
    await sender.stop();
    await pool.end();
    throw error;
  });
  // Webhooks serves its API without NATS; the fan-out starts when the broker first answers and
  // the durable consumer catches up after.
  const nats = openNatsLink({
    servers: config.NATS_URL,
    name: `webhooks@${hostname()}`,
    credentials: config,
    logger,
    onStateChange: (up) => server.health.setStatus(NATS_HEALTH_SERVICE, up ? 'SERVING' : 'NOT_SERVING'),
  });
  server.health.setStatus(NATS_HEALTH_SERVICE, nats.up() ? 'SERVING' : 'NOT_SERVING');
  const owners = jobOwnerLookup(config.JOBS_ADDR, security);
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
  // Its part of deleting accounts: the user's endpoints, deliveries and attempts.
  const accountDeletions = followAccountDeletions(nats, {
    service: 'webhooks',
    config,
    deleteUserData: webhooksAccountDeletion({ pool, logger }),
    kept: 'endpoints',
    logger,
  });

  return {
    server,
    async stop(graceMs) {
      await fanout.stop();
      await accountDeletions.stop();
      await sender.stop();
      owners.close();
      await nats.close();
      await server.shutdown(graceMs);
      await pool.end();
    },
  };
}

/** The webhooks process (main.ts hands over once telemetry runs): the schema check, metrics, the app. */
export function runWebhooks(telemetry: Telemetry): Promise<void> {
  return runService({
    name: 'webhooks',
    telemetry,
    spec: webhooksConfigSpec,
    checks: [checkNatsCredentials, checkLeaseOutlastsAttempt],
    shutdown: shutdownPolicy,
    async start(config, logger) {
      await assertSchemaCurrent(config.DATABASE_URL, { service: 'webhooks', schema: WEBHOOKS_SCHEMA, migrations: webhooksMigrations });
      const metrics = await startServiceMetrics('webhooks', { port: config.METRICS_PORT });
      const app = await startWebhooksApp(config, logger, { callObserver: metrics.grpcCalls, registry: metrics.registry });
      logger.info(
        { port: app.server.port, metricsPort: metrics.port, jobsAddr: config.JOBS_ADDR, allowedHosts: [...config.WEBHOOK_ALLOWED_HOSTS] },
        'webhooks serving gRPC',
      );
      return {
        async stop() {
          await app.stop(config.SHUTDOWN_GRACE_MS);
          await metrics.close();
        },
      };
    },
  });
}

import { hostname } from 'node:os';
import { followAccountDeletions } from '@atelier/account-deletion';
import { jobsV1, mediaV1 } from '@atelier/contracts';
import { assertSchemaCurrent, createSqlPool } from '@atelier/db';
import { createServiceClient, loadGrpcSecurity, servingOptionsOf, type CallObserver, type GrpcServerHandle } from '@atelier/grpc';
import { runService } from '@atelier/lifecycle';
import type { Logger } from '@atelier/logging';
import { startServiceMetrics, type Registry } from '@atelier/metrics';
import { NATS_HEALTH_SERVICE, checkNatsCredentials, openNatsLink } from '@atelier/nats';
import { productEventsOf, productEventsRelay, registerOutboxMetrics } from '@atelier/outbox';
import type { Telemetry } from '@atelier/telemetry';
import { communityConfigSpec, shutdownPolicy, type CommunityConfig } from './config.js';
import type { CommunityContext } from './community-context.js';
import { COMMUNITY_SCHEMA, communityMigrations } from './db/migrations/index.js';
import { startCommunityServer } from './server.js';
import { communityAccountDeletion } from './background/account-deletion.js';

export type CommunityAppConfig = Pick<
  CommunityConfig,
  | 'GRPC_PORT'
  | 'GRPC_HEALTH_PORT'
  | 'GRPC_REFLECTION'
  | 'GRPC_TLS_CA_FILE'
  | 'GRPC_TLS_CERT_FILE'
  | 'GRPC_TLS_KEY_FILE'
  | 'GRPC_TRUST_DOMAIN'
  | 'DATABASE_URL'
  | 'MEDIA_ADDR'
  | 'JOBS_ADDR'
  | 'PRODUCT_EVENTS_USER_KEY'
> &
  Partial<
    Pick<
      CommunityConfig,
      | 'NATS_URL'
      | 'NATS_STREAM_PREFIX'
      | 'NATS_STREAM_REPLICAS'
      | 'NATS_USER'
      | 'NATS_PASSWORD'
      | 'NATS_TOKEN'
      | 'ACCOUNT_DELETION_ACK_WAIT_MS'
    >
  > &
  Partial<Pick<CommunityConfig, 'POSTS_DAILY_LIMIT'>>;

export interface CommunityApp {
  readonly server: GrpcServerHandle;
  readonly context: CommunityContext;
  /** Stops serving (graceful for graceMs), then closes the peers and the pool. */
  stop(graceMs: number): Promise<void>;
}

/**
 * Wires the community service: the pg pool, the media and jobs clients, the gRPC server and — with
 * NATS — the consumer of account deletions and the relay of its outbox (product events).
 */
export async function startCommunityApp(
  config: CommunityAppConfig,
  logger: Logger,
  options: { host?: string; callObserver?: CallObserver; metricsRegistry?: Registry } = {},
): Promise<CommunityApp> {
  const security = loadGrpcSecurity(config);
  const pool = createSqlPool({ databaseUrl: config.DATABASE_URL, applicationName: 'community' });
  const peers = {
    media: createServiceClient(mediaV1.MediaServiceClient, config.MEDIA_ADDR, security),
    jobs: createServiceClient(jobsV1.JobsServiceClient, config.JOBS_ADDR, security),
  };
  const streamPrefix = config.NATS_STREAM_PREFIX ?? 'ATELIER';
  const context: CommunityContext = {
    pool,
    peers,
    logger,
    productEvents: productEventsOf({ PRODUCT_EVENTS_USER_KEY: config.PRODUCT_EVENTS_USER_KEY, NATS_STREAM_PREFIX: streamPrefix }),
    ...(config.POSTS_DAILY_LIMIT === undefined ? {} : { postLimits: { postsPerDay: config.POSTS_DAILY_LIMIT } }),
  };
  const server = await startCommunityServer(context, {
    ...servingOptionsOf(config, security),
    host: options.host,
    callObserver: options.callObserver,
  }).catch(async (error: unknown) => {
    peers.media.close();
    peers.jobs.close();
    await pool.end();
    throw error;
  });
  // Its part of deleting accounts. Community serves without NATS: the durable consumer catches up
  // from the broker's first answer on.
  const nats = config.NATS_URL
    ? openNatsLink({
        servers: config.NATS_URL,
        name: `community@${hostname()}`,
        credentials: config,
        logger,
        onStateChange: (up) => server.health.setStatus(NATS_HEALTH_SERVICE, up ? 'SERVING' : 'NOT_SERVING'),
      })
    : undefined;
  server.health.setStatus(NATS_HEALTH_SERVICE, nats?.up() ? 'SERVING' : 'NOT_SERVING');
  const accountDeletions = followAccountDeletions(nats, {
    service: 'community',
    config: { ...config, NATS_STREAM_PREFIX: streamPrefix },
    deleteUserData: communityAccountDeletion(context),
    kept: 'posts',
    logger,
  });
  // The product events of drafts and publications, from the outbox to NATS; without NATS they wait in it.
  const relay = nats
    ? productEventsRelay({
        pool,
        databaseUrl: config.DATABASE_URL,
        schema: COMMUNITY_SCHEMA,
        link: nats,
        streamPrefix,
        streamReplicas: config.NATS_STREAM_REPLICAS ?? 1,
        logger,
      })
    : undefined;
  if (relay) await relay.start();
  else logger.warn('no NATS_URL: product events wait in the outbox until community runs with NATS');
  if (options.metricsRegistry) registerOutboxMetrics(options.metricsRegistry, pool, COMMUNITY_SCHEMA);
  return {
    server,
    context,
    async stop(graceMs) {
      await accountDeletions?.stop();
      await relay?.stop();
      await nats?.close();
      await server.shutdown(graceMs);
      peers.media.close();
      peers.jobs.close();
      await pool.end();
    },
  };
}

/** The community process (main.ts hands over once telemetry runs): the schema check, metrics, the app. */
export function runCommunity(telemetry: Telemetry): Promise<void> {
  return runService({
    name: 'community',
    telemetry,
    spec: communityConfigSpec,
    checks: [checkNatsCredentials],
    shutdown: shutdownPolicy,
    async start(config, logger) {
      await assertSchemaCurrent(config.DATABASE_URL, { service: 'community', schema: COMMUNITY_SCHEMA, migrations: communityMigrations });
      const metrics = await startServiceMetrics('community', { port: config.METRICS_PORT });
      const app = await startCommunityApp(config, logger, { callObserver: metrics.grpcCalls, metricsRegistry: metrics.registry });
      logger.info(
        { port: app.server.port, metricsPort: metrics.port, mediaAddr: config.MEDIA_ADDR, jobsAddr: config.JOBS_ADDR },
        'community serving gRPC',
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

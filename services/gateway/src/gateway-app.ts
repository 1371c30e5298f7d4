import type { FastifyInstance } from 'fastify';
import {
  catalogV1,
  communityV1,
  jobsAdminV1,
  jobsCredentialsV1,
  jobsDispatchGatesV1,
  jobsReconciliationV1,
  jobsUsageV1,
  jobsV1,
  mediaV1,
  webhooksV1,
} from '@atelier/contracts';
import { checkHealth, createServiceClient, loadGrpcSecurity } from '@atelier/grpc';
import { runService } from '@atelier/lifecycle';
import type { Logger } from '@atelier/logging';
import { checkNatsCredentials } from '@atelier/nats';
import type { Telemetry } from '@atelier/telemetry';
import { createTokenVerifier } from './auth/token-verifier.js';
import { gatewayConfigChecks, gatewayConfigSpec, shutdownPolicy, type GatewayConfig } from './config.js';
import type { GatewayPeers } from './gateway-context.js';
import { HttpMetrics } from './http/http-metrics.js';
import { startSharedRateLimiter } from './rate-limit/shared-rate-limiter.js';
import { buildGateway } from './server.js';

/** Wires the gateway: token verification, one client per peer, the shared rate limit, the Fastify server. */
export async function startGatewayApp(
  config: Omit<GatewayConfig, 'LOG_LEVEL' | 'SHUTDOWN_GRACE_MS'>,
  logger: Logger,
): Promise<{ app: FastifyInstance; close(): Promise<void> }> {
  const tokens = await createTokenVerifier({
    publicKeyPem: config.JWT_PUBLIC_KEY,
    jwksUrl: config.JWKS_URL,
    issuer: config.JWT_ISSUER,
    audience: config.JWT_AUDIENCE,
    clockToleranceS: config.JWT_CLOCK_TOLERANCE_S,
  });
  const security = loadGrpcSecurity(config);
  const deadline = { defaultDeadlineMs: config.UPSTREAM_DEADLINE_MS };
  const peers: GatewayPeers = {
    catalog: createServiceClient(catalogV1.CatalogServiceClient, config.CATALOG_ADDR, security, deadline),
    media: createServiceClient(mediaV1.MediaServiceClient, config.MEDIA_ADDR, security, deadline),
    jobs: createServiceClient(jobsV1.JobsServiceClient, config.JOBS_ADDR, security, deadline),
    jobsAdmin: createServiceClient(jobsAdminV1.JobsAdminServiceClient, config.JOBS_ADDR, security, deadline),
    usage: createServiceClient(jobsUsageV1.ProviderUsageServiceClient, config.JOBS_ADDR, security, deadline),
    reconciliation: createServiceClient(jobsReconciliationV1.ProviderReconciliationServiceClient, config.JOBS_ADDR, security, deadline),
    jobsGates: createServiceClient(jobsDispatchGatesV1.ProviderDispatchServiceClient, config.JOBS_ADDR, security, deadline),
    community: createServiceClient(communityV1.CommunityServiceClient, config.COMMUNITY_ADDR, security, deadline),
    webhooks: createServiceClient(webhooksV1.WebhooksServiceClient, config.WEBHOOKS_ADDR, security, deadline),
    credentials: createServiceClient(jobsCredentialsV1.ProviderCredentialsServiceClient, config.JOBS_ADDR, security, deadline),
  };
  const addresses = { catalog: config.CATALOG_ADDR, media: config.MEDIA_ADDR, jobs: config.JOBS_ADDR, community: config.COMMUNITY_ADDR };
  const metrics = new HttpMetrics();
  const rateLimiter = config.RATE_LIMIT_ENABLED
    ? startSharedRateLimiter({
        settings: {
          windowMs: config.RATE_LIMIT_WINDOW_SECONDS * 1000,
          userMax: config.RATE_LIMIT_USER_MAX,
          addressMax: config.RATE_LIMIT_ADDRESS_MAX,
          batchMax: config.RATE_LIMIT_BATCH_MAX,
        },
        nats: {
          servers: config.NATS_URL,
          streamPrefix: config.NATS_STREAM_PREFIX,
          streamReplicas: config.NATS_STREAM_REPLICAS,
          credentials: config,
          timeoutMs: config.RATE_LIMIT_STORE_TIMEOUT_MS,
        },
        logger,
        registry: metrics.registry,
      })
    : undefined;
  const app = await buildGateway({
    metrics,
    rateLimiter,
    trustedProxyHops: config.TRUSTED_PROXY_HOPS,
    consoleDir: config.CONSOLE_DIR,
    peers,
    tokens,
    logger,
    upstreamDeadlineMs: config.UPSTREAM_DEADLINE_MS,
    sseKeepAliveMs: config.SSE_KEEPALIVE_MS,
    queuedViewFreshMs: config.QUEUED_VIEW_FRESH_MS,
    sseMaxStreamsPerUser: config.SSE_MAX_STREAMS_PER_USER,
    peerHealth: async () =>
      Object.fromEntries(
        await Promise.all(
          Object.entries(addresses).map(async ([name, address]) => [
            name,
            await checkHealth({ address, tls: { security, serverName: name } }, '', 1_000).catch(() => 'UNREACHABLE'),
          ]),
        ),
      ),
  });
  await app.listen({ port: config.HTTP_PORT, host: '0.0.0.0' });
  return {
    app,
    async close() {
      await app.close();
      for (const client of Object.values(peers)) client.close();
      await rateLimiter?.close();
    },
  };
}

/** The gateway process (main.ts hands over once telemetry runs): the app on HTTP_PORT. */
export function runGateway(telemetry: Telemetry): Promise<void> {
  return runService({
    name: 'gateway',
    telemetry,
    spec: gatewayConfigSpec,
    checks: [...gatewayConfigChecks, checkNatsCredentials],
    shutdown: shutdownPolicy,
    async start(config, logger) {
      const gateway = await startGatewayApp(config, logger);
      logger.info({ port: config.HTTP_PORT }, 'gateway serving HTTP');
      return { stop: () => gateway.close() };
    },
  });
}

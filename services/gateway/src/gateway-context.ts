// @fastify/swagger adds tags, summary and description to route schemas.
import type {} from '@fastify/swagger';
import type {
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
import type { PromiseClient } from '@atelier/grpc';
import type { Logger } from '@atelier/logging';
import type { TokenVerifier } from './auth/token-verifier.js';
import type { HttpMetrics } from './http/http-metrics.js';
import type { SharedRateLimiter } from './rate-limit/shared-rate-limiter.js';

/** The gRPC peers the API translates to. */
export interface GatewayPeers {
  catalog: PromiseClient<catalogV1.CatalogServiceClient>;
  media: PromiseClient<mediaV1.MediaServiceClient>;
  jobs: PromiseClient<jobsV1.JobsServiceClient>;
  jobsAdmin: PromiseClient<jobsAdminV1.JobsAdminServiceClient>;
  /** The usage ledger's reads (spend, top users, a job's calls): operators only. */
  usage: PromiseClient<jobsUsageV1.ProviderUsageServiceClient>;
  /** Reconciliation with the vendor: the findings operators read and acknowledge. */
  reconciliation: PromiseClient<jobsReconciliationV1.ProviderReconciliationServiceClient>;
  /** The providers' budgets and limits (jobs' ProviderDispatchService). */
  jobsGates: PromiseClient<jobsDispatchGatesV1.ProviderDispatchServiceClient>;
  community: PromiseClient<communityV1.CommunityServiceClient>;
  webhooks: PromiseClient<webhooksV1.WebhooksServiceClient>;
  /** Users' own vendor keys (jobs' ProviderCredentialsService). */
  credentials: PromiseClient<jobsCredentialsV1.ProviderCredentialsServiceClient>;
}

export interface GatewayContext {
  peers: GatewayPeers;
  tokens: TokenVerifier;
  logger: Logger;
  upstreamDeadlineMs: number;
  sseKeepAliveMs: number;
  /** How old a queued job's view answered from memory may be (routes/queued-job-views.ts); 0 or absent: every read asks jobs. */
  queuedViewFreshMs?: number;
  /** Live job event streams one user may hold on this replica. */
  sseMaxStreamsPerUser: number;
  /** The rate limit per subject and per address; none: unlimited (tests of other things). */
  rateLimiter?: SharedRateLimiter;
  /** Proxy hops in front of the gateway whose X-Forwarded-For is believed (the client address). */
  trustedProxyHops?: number;
  /** The Prometheus series; a registry of its own when absent. */
  metrics?: HttpMetrics;
  /** The console's static build (apps/console/dist) served at /console; none: /console is a 404 saying so. */
  consoleDir?: string;
  /** Each peer's grpc.health.v1 status now (`SERVING`, `NOT_SERVING`, `UNREACHABLE` …), by name. */
  peerHealth(): Promise<Record<string, string>>;
}

import { bool, doc, hostPort, int, oneOf, optional, port, str, url, type ConfigCheck, type ConfigOf } from '@atelier/config';
import { grpcSecurityConfigSpec } from '@atelier/grpc';
import { GRACEFUL_SHUTDOWN } from '@atelier/lifecycle';
import { natsConfigSpec, natsStreamsConfigSpec } from '@atelier/nats';
import { defaultAddressOf } from '@atelier/platform';

/** Environment variables of the gateway (docs/configuration.md is generated from this spec). */
export const gatewayConfigSpec = {
  ...grpcSecurityConfigSpec,
  HTTP_PORT: doc(port(8080), 'the API, `/docs`, `/openapi.json`, `/console`, `/metrics`, `/healthz`, `/readyz`'),
  CATALOG_ADDR: doc(hostPort(defaultAddressOf('catalog')), 'catalog (a readiness peer)'),
  MEDIA_ADDR: doc(hostPort(defaultAddressOf('media')), 'media (a readiness peer)'),
  JOBS_ADDR: doc(hostPort(defaultAddressOf('jobs')), 'jobs (a readiness peer)'),
  COMMUNITY_ADDR: doc(hostPort(defaultAddressOf('community')), 'community (a readiness peer)'),
  WEBHOOKS_ADDR: doc(
    hostPort(defaultAddressOf('webhooks')),
    "webhooks, for the `/api/v1/webhooks` routes; not a readiness peer (the app's journey does not need it)",
  ),
  JWT_PUBLIC_KEY: doc(
    optional(str({ secret: true })),
    'PEM (SPKI) public key of the token issuer (EdDSA, RS256, ES256, PS256); this or JWKS_URL is required',
  ),
  JWKS_URL: doc(optional(url({ protocols: ['http:', 'https:'] })), "the token issuer's JWKS, instead of JWT_PUBLIC_KEY"),
  JWT_ISSUER: doc(str({ maxLength: 1000 }), "a token's `iss` must match (`npm start` passes its dev value)"),
  JWT_AUDIENCE: doc(str({ maxLength: 1000 }), "a token's `aud` must match (`npm start` passes its dev value)"),
  JWT_CLOCK_TOLERANCE_S: doc(
    int({ default: 30, min: 0, max: 300 }),
    'clock skew allowed between the token issuer and the gateway on `exp` and `nbf`',
  ),
  UPSTREAM_DEADLINE_MS: doc(int({ default: 10_000, min: 100, max: 120_000 }), 'deadline of every gRPC call made for a request'),
  QUEUED_VIEW_FRESH_MS: doc(
    int({ default: 2_000, min: 0, max: 10_000 }),
    "GET of a queued job: how old the queue position of a view answered from memory may be (its status and every other change are pushed by jobs' WatchJob as they happen; `routes/queued-job-views.ts`); `0`: every read asks jobs",
  ),
  SSE_KEEPALIVE_MS: doc(int({ default: 15_000, min: 100, max: 600_000 }), 'comment lines that keep job event streams open through proxies'),
  SSE_MAX_STREAMS_PER_USER: doc(
    int({ default: 5, min: 1, max: 1000 }),
    'live job event streams one user may hold on one gateway replica; one more is 429 `42901`',
  ),
  /**
   * The rate limit (docs/services.md, "Rate limit"): fixed windows counted in a JetStream KV bucket
   * every replica shares (<NATS_STREAM_PREFIX>_RATE_LIMITS), so NATS_* say where it is.
   */
  RATE_LIMIT_ENABLED: doc(bool(true), 'the rate limit of `/api` and `/admin-api` (429 `42920`)'),
  RATE_LIMIT_WINDOW_SECONDS: doc(int({ default: 60, min: 1, max: 3600 }), 'length of its fixed windows (aligned on the epoch)'),
  RATE_LIMIT_USER_MAX: doc(
    int({ default: 3000, min: 1, max: 100_000_000 }),
    'requests per window per authenticated subject, across all replicas',
  ),
  RATE_LIMIT_ADDRESS_MAX: doc(
    int({ default: 3000, min: 1, max: 100_000_000 }),
    'requests per window per client address, for requests without a valid token',
  ),
  RATE_LIMIT_BATCH_MAX: doc(int({ default: 20, min: 1, max: 10_000 }), 'the most units a replica reserves from the shared counter at once'),
  RATE_LIMIT_STORE_TIMEOUT_MS: doc(
    int({ default: 500, min: 20, max: 10_000 }),
    'timeout of a KV request; past it the request is let through',
  ),
  TRUSTED_PROXY_HOPS: doc(
    int({ default: 0, min: 0, max: 10 }),
    'proxies in front of the gateway (ingress, load balancer) whose `X-Forwarded-For` gives the client address; `1` behind an ingress',
  ),
  CONSOLE_DIR: doc(
    optional(str({ maxLength: 4096 })),
    "the console's static build (`apps/console/dist`; `/app/console` in the image), served at `/console`; unset: `/console` is a 404 saying so",
  ),
  ...natsConfigSpec,
  ...natsStreamsConfigSpec,
  LOG_LEVEL: doc(oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'), 'the least severe level logged'),
  SHUTDOWN_GRACE_MS: doc(
    int({ default: 10_000, min: 0, max: 600_000 }),
    'how long in-flight requests and event streams may run after SIGTERM',
  ),
} as const;

export type GatewayConfig = ConfigOf<typeof gatewayConfigSpec>;

/**
 * On SIGTERM in-flight requests (and event streams) may finish within SHUTDOWN_GRACE_MS; the
 * process forces its exit 5 s later at the latest (the chart's grace period is derived from both).
 */
export const shutdownPolicy = GRACEFUL_SHUTDOWN;

/** Rules across variables: tokens cannot be verified without a key. */
export const gatewayConfigChecks: readonly ConfigCheck<typeof gatewayConfigSpec>[] = [
  (config) =>
    config.JWT_PUBLIC_KEY || config.JWKS_URL
      ? []
      : [{ variable: 'JWT_PUBLIC_KEY or JWKS_URL', problem: 'is required (tokens cannot be verified without one)' }],
];

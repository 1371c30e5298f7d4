import { bool, hostPort, int, oneOf, optional, port, str, url, type ConfigCheck, type ConfigOf } from '@atelier/config';
import { grpcSecurityConfigSpec } from '@atelier/grpc';
import { GRACEFUL_SHUTDOWN } from '@atelier/lifecycle';
import { natsConfigSpec, natsStreamsConfigSpec } from '@atelier/nats';

/** Environment variables of the gateway (README, "Configuration of gateway"). */
export const gatewayConfigSpec = {
  ...grpcSecurityConfigSpec,
  HTTP_PORT: port(8080),
  CATALOG_ADDR: hostPort('127.0.0.1:50051'),
  MEDIA_ADDR: hostPort('127.0.0.1:50052'),
  JOBS_ADDR: hostPort('127.0.0.1:50053'),
  COMMUNITY_ADDR: hostPort('127.0.0.1:50054'),
  /** Webhooks (the /api/v1/webhooks routes); not a readiness peer: the app's journey does not need it. */
  WEBHOOKS_ADDR: hostPort('127.0.0.1:50055'),
  /** PEM (SPKI) public key of the token issuer; or JWKS_URL. One of them is required. */
  JWT_PUBLIC_KEY: optional(str({ secret: true })),
  JWKS_URL: optional(url({ protocols: ['http:', 'https:'] })),
  /** Required: a token from the right key but another issuer or audience is refused. */
  JWT_ISSUER: str({ maxLength: 1000 }),
  JWT_AUDIENCE: str({ maxLength: 1000 }),
  /** Clock skew allowed between the token issuer and this gateway (exp, nbf). */
  JWT_CLOCK_TOLERANCE_S: int({ default: 30, min: 0, max: 300 }),
  /** Deadline of a gRPC call made for a request. */
  UPSTREAM_DEADLINE_MS: int({ default: 10_000, min: 100, max: 120_000 }),
  /** Comment lines keep SSE streams open through proxies. */
  SSE_KEEPALIVE_MS: int({ default: 15_000, min: 100, max: 600_000 }),
  /** Live job event streams one user may hold on this gateway replica; one more is a 429. */
  SSE_MAX_STREAMS_PER_USER: int({ default: 5, min: 1, max: 1000 }),
  /**
   * The rate limit (README, "Rate limit"): fixed windows counted in a JetStream KV bucket every
   * replica shares (<NATS_STREAM_PREFIX>_RATE_LIMITS), so NATS_* say where it is.
   */
  RATE_LIMIT_ENABLED: bool(true),
  RATE_LIMIT_WINDOW_SECONDS: int({ default: 60, min: 1, max: 3600 }),
  RATE_LIMIT_USER_MAX: int({ default: 3000, min: 1, max: 100_000_000 }),
  RATE_LIMIT_ADDRESS_MAX: int({ default: 3000, min: 1, max: 100_000_000 }),
  RATE_LIMIT_BATCH_MAX: int({ default: 20, min: 1, max: 10_000 }),
  RATE_LIMIT_STORE_TIMEOUT_MS: int({ default: 500, min: 20, max: 10_000 }),
  /** Proxies (ingress, load balancer) in front of the gateway: the client address is read from X-Forwarded-For past them. */
  TRUSTED_PROXY_HOPS: int({ default: 0, min: 0, max: 10 }),
  /** The folder of the console's static build (apps/console/dist; /app/console in the image), served at /console. */
  CONSOLE_DIR: optional(str({ maxLength: 4096 })),
  ...natsConfigSpec,
  ...natsStreamsConfigSpec,
  LOG_LEVEL: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
  SHUTDOWN_GRACE_MS: int({ default: 10_000, min: 0, max: 600_000 }),
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

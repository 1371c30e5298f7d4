import { bool, hostPort, int, oneOf, port, url, type ConfigOf } from '@atelier/config';
import { grpcSecurityConfigSpec } from '@atelier/grpc';
import { GRACEFUL_SHUTDOWN } from '@atelier/lifecycle';
import { natsConfigSpec } from '@atelier/nats';

/** Environment variables of the catalog service (README, "Configuration"). */
export const catalogConfigSpec = {
  GRPC_PORT: port(50051),
  /** Plaintext grpc.health.v1 only, for Kubernetes probes (they speak no TLS); 0 = a free port (tests). */
  GRPC_HEALTH_PORT: port(50151),
  /** Serve gRPC server reflection (off: it lists every method to any caller with a certificate). */
  GRPC_REFLECTION: bool(false),
  /** Mutual TLS: this service's certificate and key, the platform CA, the identities' trust domain. */
  ...grpcSecurityConfigSpec,
  /** Prometheus scrapes http://<pod>:METRICS_PORT/metrics; 0 asks the OS for a free port (tests). */
  METRICS_PORT: port(9464),
  DATABASE_URL: url({
    protocols: ['postgres:', 'postgresql:'],
    default: 'postgres://postgres@127.0.0.1:5432/atelier',
    secret: true,
  }),
  /**
   * NATS, for change notices only (libs/nats catalog-changes.ts): catalog serves without it; jobs'
   * catalog cache then falls back on its TTL.
   */
  ...natsConfigSpec,
  /** Media, for style previews: a style's preview_asset_id is checked there at write and linked for GetStylePreview. */
  MEDIA_ADDR: hostPort('127.0.0.1:50052'),
  LOG_LEVEL: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
  /** How long in-flight calls may take to finish on SIGTERM. */
  SHUTDOWN_GRACE_MS: int({ default: 10_000, min: 0, max: 600_000 }),
  DB_POOL_MAX: int({ default: 5, min: 1, max: 500 }),
} as const;

export type CatalogConfig = ConfigOf<typeof catalogConfigSpec>;

/**
 * On SIGTERM in-flight calls may finish within SHUTDOWN_GRACE_MS; the process forces its exit 5 s
 * later at the latest (the chart's grace period is derived from both).
 */
export const shutdownPolicy = GRACEFUL_SHUTDOWN;

import { bool, doc, hostPort, int, oneOf, port, url, type ConfigOf } from '@atelier/config';
import { grpcSecurityConfigSpec } from '@atelier/grpc';
import { GRACEFUL_SHUTDOWN } from '@atelier/lifecycle';
import { natsConfigSpec } from '@atelier/nats';
import { defaultAddressOf } from '@atelier/platform';

/** Environment variables of the catalog service (docs/configuration.md is generated from this spec). */
export const catalogConfigSpec = {
  GRPC_PORT: doc(port(50051), 'gRPC listen port (mutual TLS), all interfaces'),
  GRPC_HEALTH_PORT: doc(port(50151), 'plaintext `grpc.health.v1` only, for Kubernetes probes (they speak no TLS); 0: a free port (tests)'),
  GRPC_REFLECTION: doc(bool(false), 'serve gRPC server reflection (off: it lists every method to any caller with a certificate)'),
  ...grpcSecurityConfigSpec,
  METRICS_PORT: doc(port(9464), 'Prometheus `GET /metrics` over HTTP; 0: a free port (tests)'),
  DATABASE_URL: doc(
    url({
      protocols: ['postgres:', 'postgresql:'],
      default: 'postgres://postgres@127.0.0.1:5432/atelier',
      secret: true,
    }),
    'Postgres; the service uses its schema `catalog` only',
  ),
  /**
   * NATS, for change notices only (libs/nats catalog-changes.ts): catalog serves without it; jobs'
   * catalog cache then falls back on its TTL.
   */
  ...natsConfigSpec,
  MEDIA_ADDR: doc(
    hostPort(defaultAddressOf('media')),
    "media, for style previews: a `preview_asset_id` must be a ready asset at write, and `GetStylePreview` links an enabled style's preview; catalog serves without media, only those two then fail (UNAVAILABLE)",
  ),
  LOG_LEVEL: doc(oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'), 'the least severe level logged'),
  SHUTDOWN_GRACE_MS: doc(int({ default: 10_000, min: 0, max: 600_000 }), 'how long in-flight calls may run after SIGTERM'),
  DB_POOL_MAX: doc(int({ default: 5, min: 1, max: 500 }), "pg connections of the service's pool"),
} as const;

export type CatalogConfig = ConfigOf<typeof catalogConfigSpec>;

/**
 * On SIGTERM in-flight calls may finish within SHUTDOWN_GRACE_MS; the process forces its exit 5 s
 * later at the latest (the chart's grace period is derived from both).
 */
export const shutdownPolicy = GRACEFUL_SHUTDOWN;

import { bool, hostPort, int, oneOf, optional, port, str, url, type ConfigOf } from '@atelier/config';
import { grpcSecurityConfigSpec } from '@atelier/grpc';
import { GRACEFUL_SHUTDOWN } from '@atelier/lifecycle';
import { accountDeletionConfigSpec, natsConfigSpec, natsStreamsConfigSpec } from '@atelier/nats';
import { productEventsConfigSpec } from '@atelier/outbox';
import { DEFAULT_POST_LIMITS } from './domain/post-limits.js';

/** Environment variables of the community service (README, "Configuration"). */
export const communityConfigSpec = {
  GRPC_PORT: port(50054),
  /** Plaintext grpc.health.v1 only, for Kubernetes probes (they speak no TLS); 0 = a free port (tests). */
  GRPC_HEALTH_PORT: port(50154),
  /** Serve gRPC server reflection (off: it lists every method to any caller with a certificate). */
  GRPC_REFLECTION: bool(false),
  /** Mutual TLS: this service's certificate and key, the platform CA, the identities' trust domain. */
  ...grpcSecurityConfigSpec,
  /** Prometheus scrapes http://<pod>:METRICS_PORT/metrics; 0 asks the OS for a free port (tests). */
  METRICS_PORT: port(9464),
  DATABASE_URL: url({ protocols: ['postgres:', 'postgresql:'], default: 'postgres://postgres@127.0.0.1:5432/atelier', secret: true }),
  /** Media answers whether attached assets are the author's, ready and of a postable purpose. */
  MEDIA_ADDR: hostPort('127.0.0.1:50052'),
  /** Jobs answers whether a referenced generation job is the author's and succeeded, and its output. */
  JOBS_ADDR: hostPort('127.0.0.1:50053'),
  LOG_LEVEL: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
  /** Posts (drafts included) an author may create per UTC day; then RESOURCE_EXHAUSTED POST_QUOTA_EXCEEDED. */
  POSTS_DAILY_LIMIT: int({ default: DEFAULT_POST_LIMITS.postsPerDay, min: 1, max: 1_000_000 }),
  SHUTDOWN_GRACE_MS: int({ default: 10_000, min: 0, max: 600_000 }),
  /**
   * NATS with the account events: the posts of a user whose account's deletion is requested are
   * deleted. Unset: they are not (a warning says so at start-up).
   */
  ...natsConfigSpec,
  ...natsStreamsConfigSpec,
  ...accountDeletionConfigSpec,
  /** The key of the user_ref in product events (the same in jobs, media and community); required. */
  ...productEventsConfigSpec,
  NATS_URL: optional(str()),
} as const;

export type CommunityConfig = ConfigOf<typeof communityConfigSpec>;

/**
 * On SIGTERM in-flight calls may finish within SHUTDOWN_GRACE_MS; the process forces its exit 5 s
 * later at the latest (the chart's grace period is derived from both).
 */
export const shutdownPolicy = GRACEFUL_SHUTDOWN;

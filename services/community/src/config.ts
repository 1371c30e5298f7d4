import { accountDeletionConfigSpec } from '@atelier/account-deletion';
import { bool, doc, hostPort, int, oneOf, optional, port, str, url, type ConfigOf } from '@atelier/config';
import { grpcSecurityConfigSpec } from '@atelier/grpc';
import { GRACEFUL_SHUTDOWN } from '@atelier/lifecycle';
import { natsConfigSpec, natsStreamsConfigSpec } from '@atelier/nats';
import { productEventsConfigSpec } from '@atelier/outbox';
import { defaultAddressOf } from '@atelier/platform';
import { DEFAULT_POST_LIMITS } from './domain/post-limits.js';

/** Environment variables of the community service (docs/configuration.md is generated from this spec). */
export const communityConfigSpec = {
  GRPC_PORT: doc(port(50054), 'gRPC listen port (mutual TLS), all interfaces'),
  GRPC_HEALTH_PORT: doc(port(50154), 'plaintext `grpc.health.v1` only, for Kubernetes probes (they speak no TLS); 0: a free port (tests)'),
  GRPC_REFLECTION: doc(bool(false), 'serve gRPC server reflection (off: it lists every method to any caller with a certificate)'),
  ...grpcSecurityConfigSpec,
  METRICS_PORT: doc(port(9464), 'Prometheus `GET /metrics` over HTTP; 0: a free port (tests)'),
  DATABASE_URL: doc(
    url({ protocols: ['postgres:', 'postgresql:'], default: 'postgres://postgres@127.0.0.1:5432/atelier', secret: true }),
    'Postgres; the service uses its schema `community` only',
  ),
  MEDIA_ADDR: doc(
    hostPort(defaultAddressOf('media')),
    "media: whether a post's attached images are the author's, `ready` and of purpose `post_image` or `ai_output`",
  ),
  JOBS_ADDR: doc(
    hostPort(defaultAddressOf('jobs')),
    "jobs: whether a referenced generation job is the author's and `succeeded`, and its output",
  ),
  LOG_LEVEL: doc(oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'), 'the least severe level logged'),
  POSTS_DAILY_LIMIT: doc(
    int({ default: DEFAULT_POST_LIMITS.postsPerDay, min: 1, max: 1_000_000 }),
    'posts an author may create per UTC day (drafts and later deleted ones counted); then `POST_QUOTA_EXCEEDED` (API: 429, `42912`), retry after the seconds to 00:00 UTC',
  ),
  SHUTDOWN_GRACE_MS: doc(int({ default: 10_000, min: 0, max: 600_000 }), 'how long in-flight calls may run after SIGTERM'),
  ...natsConfigSpec,
  ...natsStreamsConfigSpec,
  ...accountDeletionConfigSpec,
  ...productEventsConfigSpec,
  NATS_URL: doc(
    optional(str()),
    "NATS with JetStream, for account deletions (the account's posts deleted) and the relay of community's product events; unset: neither (a warning says so; the events wait in `community.outbox`)",
  ),
} as const;

export type CommunityConfig = ConfigOf<typeof communityConfigSpec>;

/**
 * On SIGTERM in-flight calls may finish within SHUTDOWN_GRACE_MS; the process forces its exit 5 s
 * later at the latest (the chart's grace period is derived from both).
 */
export const shutdownPolicy = GRACEFUL_SHUTDOWN;

import { bool, hostPort, int, oneOf, optional, port, str, url, type ConfigCheck, type ConfigOf } from '@atelier/config';
import { grpcSecurityConfigSpec } from '@atelier/grpc';
import { GRACEFUL_SHUTDOWN } from '@atelier/lifecycle';
import { accountDeletionConfigSpec, natsConfigSpec, natsStreamsConfigSpec } from '@atelier/nats';
import { productEventsConfigSpec } from '@atelier/outbox';
import { DEFAULT_UPLOAD_LIMITS } from './domain/upload-limits.js';

/** Environment variables of the media service (README, "Configuration"). */
export const mediaConfigSpec = {
  GRPC_PORT: port(50052),
  /** Plaintext grpc.health.v1 only, for Kubernetes probes (they speak no TLS); 0 = a free port (tests). */
  GRPC_HEALTH_PORT: port(50152),
  /** Serve gRPC server reflection (off: it lists every method to any caller with a certificate). */
  GRPC_REFLECTION: bool(false),
  /** Mutual TLS: this service's certificate and key, the platform CA, the identities' trust domain. */
  ...grpcSecurityConfigSpec,
  /** Prometheus scrapes http://<pod>:METRICS_PORT/metrics; 0 asks the OS for a free port (tests). */
  METRICS_PORT: port(9464),
  DATABASE_URL: url({ protocols: ['postgres:', 'postgresql:'], default: 'postgres://postgres@127.0.0.1:5432/atelier', secret: true }),
  LOG_LEVEL: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
  SHUTDOWN_GRACE_MS: int({ default: 10_000, min: 0, max: 600_000 }),
  DB_POOL_MAX: int({ default: 10, min: 1, max: 500 }),
  /** Unset: an embedded S3-protocol store on loopback (local runs only). */
  S3_ENDPOINT: optional(url({ protocols: ['http:', 'https:'] })),
  /** Where clients outside the cluster reach the store; presigned URLs point there. */
  S3_PUBLIC_ENDPOINT: optional(url({ protocols: ['http:', 'https:'] })),
  S3_REGION: str({ default: 'us-east-1' }),
  S3_BUCKET: str({ default: 'atelier-media', pattern: /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/ }),
  S3_ACCESS_KEY_ID: optional(str({ secret: true })),
  S3_SECRET_ACCESS_KEY: optional(str({ secret: true })),
  S3_FORCE_PATH_STYLE: bool(true),
  S3_EMBEDDED_PORT: port(4569),
  S3_EMBEDDED_DIR: str({ default: '.data/s3' }),
  UPLOAD_URL_TTL_SECONDS: int({ default: 900, min: 30, max: 7 * 24 * 3600 }),
  DOWNLOAD_URL_TTL_SECONDS: int({ default: 300, min: 30, max: 7 * 24 * 3600 }),
  /** Uploads not completed within this age are swept with their objects. */
  UPLOAD_TTL_MS: int({ default: 3_600_000, min: 60_000, max: 7 * 24 * 3_600_000 }),
  /** CompleteUpload checks running at once per process; more wait up to 5 s, then UNAVAILABLE. */
  UPLOAD_COMPLETIONS_MAX: int({ default: 4, min: 1, max: 64 }),
  SWEEP_INTERVAL_MS: int({ default: 60_000, min: 1_000, max: 3_600_000 }),
  /** Per-user limits of CreateUpload (domain/upload-limits.ts); refusals are RESOURCE_EXHAUSTED. */
  UPLOADS_DAILY_LIMIT: int({ default: DEFAULT_UPLOAD_LIMITS.uploadsPerDay, min: 1, max: 1_000_000 }),
  STORED_BYTES_LIMIT: int({ default: DEFAULT_UPLOAD_LIMITS.storedBytes, min: 1, max: 2 ** 50 }),
  STORED_BYTES_RETRY_AFTER_SECONDS: int({ default: DEFAULT_UPLOAD_LIMITS.storedBytesRetryAfterSeconds, min: 1, max: 86_400 }),
  /**
   * NATS with the jobs lifecycle events: the outputs of jobs that failed or were cancelled after
   * a worker stored them are deleted. Unset: no cleanup (a warning says so at start-up).
   */
  ...natsConfigSpec,
  ...natsStreamsConfigSpec,
  ...accountDeletionConfigSpec,
  /** The key of the user_ref in product events (the same in jobs, media and community); required. */
  ...productEventsConfigSpec,
  NATS_URL: optional(str()),
  /**
   * The jobs service: the cleanup deletes outputs only once jobs confirms the job failed or was
   * cancelled; an owner's delete is refused while a queued or running job uses the asset.
   */
  JOBS_ADDR: hostPort('127.0.0.1:50053'),
  /** The community service: an owner's delete is refused while a published post shows the asset (jobs is asked likewise). */
  COMMUNITY_ADDR: hostPort('127.0.0.1:50054'),
} as const;

export type MediaConfig = ConfigOf<typeof mediaConfigSpec>;

/** A store of one's own (S3_ENDPOINT) needs its keys; only the embedded one has keys of its own. */
export const checkS3Credentials: ConfigCheck<typeof mediaConfigSpec> = (config) =>
  config.S3_ENDPOINT && (!config.S3_ACCESS_KEY_ID || !config.S3_SECRET_ACCESS_KEY)
    ? [{ variable: 'S3_ACCESS_KEY_ID', problem: 'and S3_SECRET_ACCESS_KEY are required when S3_ENDPOINT is set' }]
    : [];

/**
 * On SIGTERM in-flight calls may finish within SHUTDOWN_GRACE_MS; the process forces its exit 5 s
 * later at the latest (the chart's grace period is derived from both).
 */
export const shutdownPolicy = GRACEFUL_SHUTDOWN;

import { accountDeletionConfigSpec } from '@atelier/account-deletion';
import { bool, doc, hostPort, int, oneOf, optional, port, str, url, type ConfigCheck, type ConfigOf } from '@atelier/config';
import { grpcSecurityConfigSpec } from '@atelier/grpc';
import { GRACEFUL_SHUTDOWN } from '@atelier/lifecycle';
import { natsConfigSpec, natsStreamsConfigSpec } from '@atelier/nats';
import { productEventsConfigSpec } from '@atelier/outbox';
import { defaultAddressOf } from '@atelier/platform';
import { DEFAULT_UPLOAD_LIMITS } from './domain/upload-limits.js';

/** Environment variables of the media service (docs/configuration.md is generated from this spec). */
export const mediaConfigSpec = {
  GRPC_PORT: doc(port(50052), 'gRPC listen port (mutual TLS), all interfaces'),
  GRPC_HEALTH_PORT: doc(port(50152), 'plaintext `grpc.health.v1` only, for Kubernetes probes (they speak no TLS); 0: a free port (tests)'),
  GRPC_REFLECTION: doc(bool(false), 'serve gRPC server reflection (off: it lists every method to any caller with a certificate)'),
  ...grpcSecurityConfigSpec,
  METRICS_PORT: doc(port(9464), 'Prometheus `GET /metrics` over HTTP; 0: a free port (tests)'),
  DATABASE_URL: doc(
    url({ protocols: ['postgres:', 'postgresql:'], default: 'postgres://postgres@127.0.0.1:5432/atelier', secret: true }),
    'Postgres; the service uses its schema `media` only',
  ),
  LOG_LEVEL: doc(oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'), 'the least severe level logged'),
  SHUTDOWN_GRACE_MS: doc(int({ default: 10_000, min: 0, max: 600_000 }), 'how long in-flight calls may run after SIGTERM'),
  DB_POOL_MAX: doc(int({ default: 10, min: 1, max: 500 }), "pg connections of the service's pool"),
  S3_ENDPOINT: doc(
    optional(url({ protocols: ['http:', 'https:'] })),
    'S3 or MinIO endpoint; unset starts an embedded S3-protocol store on loopback (local runs only)',
  ),
  S3_PUBLIC_ENDPOINT: doc(
    optional(url({ protocols: ['http:', 'https:'] })),
    'the endpoint clients outside the cluster reach; presigned URLs point there',
  ),
  S3_REGION: doc(str({ default: 'us-east-1' }), "the bucket's region"),
  S3_BUCKET: doc(
    str({ default: 'atelier-media', pattern: /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/ }),
    'the bucket; created at start-up when missing',
  ),
  S3_ACCESS_KEY_ID: doc(optional(str({ secret: true })), 'required with S3_ENDPOINT; never logged'),
  S3_SECRET_ACCESS_KEY: doc(optional(str({ secret: true })), 'required with S3_ENDPOINT; never logged'),
  S3_FORCE_PATH_STYLE: doc(bool(true), 'path-style addressing (MinIO and most S3-compatible stores need it)'),
  S3_EMBEDDED_PORT: doc(port(4569), "the embedded store's port (without S3_ENDPOINT)"),
  S3_EMBEDDED_DIR: doc(str({ default: '.data/s3' }), "the embedded store's folder (without S3_ENDPOINT)"),
  UPLOAD_URL_TTL_SECONDS: doc(int({ default: 900, min: 30, max: 7 * 24 * 3600 }), 'lifetime of a presigned PUT'),
  DOWNLOAD_URL_TTL_SECONDS: doc(int({ default: 300, min: 30, max: 7 * 24 * 3600 }), 'lifetime of a presigned GET'),
  UPLOAD_TTL_MS: doc(
    int({ default: 3_600_000, min: 60_000, max: 7 * 24 * 3_600_000 }),
    'uploads not completed within this age are removed with their objects',
  ),
  UPLOAD_COMPLETIONS_MAX: doc(
    int({ default: 4, min: 1, max: 64 }),
    '`CompleteUpload` checks running at once per process; more wait up to 5 s, then get UNAVAILABLE (`UPLOAD_COMPLETIONS_BUSY`, retry after 1 s)',
  ),
  SWEEP_INTERVAL_MS: doc(int({ default: 60_000, min: 1_000, max: 3_600_000 }), 'how often uploads past UPLOAD_TTL_MS are looked for'),
  UPLOADS_DAILY_LIMIT: doc(
    int({ default: DEFAULT_UPLOAD_LIMITS.uploadsPerDay, min: 1, max: 1_000_000 }),
    'uploads (`CreateUpload`) a user may start per UTC day, whatever becomes of them; then `UPLOAD_QUOTA_EXCEEDED` (API: 429, `42910`), retry after the seconds to 00:00 UTC',
  ),
  STORED_BYTES_LIMIT: doc(
    int({ default: DEFAULT_UPLOAD_LIMITS.storedBytes, min: 1, max: 2 ** 50 }),
    "declared bytes of a user's live assets (uploads in progress and `ai_output` included); an upload that would pass it is `STORAGE_QUOTA_EXCEEDED` (API: 429, `42911`)",
  ),
  STORED_BYTES_RETRY_AFTER_SECONDS: doc(
    int({ default: DEFAULT_UPLOAD_LIMITS.storedBytesRetryAfterSeconds, min: 1, max: 86_400 }),
    'the Retry-After of `STORAGE_QUOTA_EXCEEDED` (room frees only when the user deletes something)',
  ),
  ...natsConfigSpec,
  ...natsStreamsConfigSpec,
  ...accountDeletionConfigSpec,
  ...productEventsConfigSpec,
  NATS_URL: doc(
    optional(str()),
    "NATS with JetStream, for the jobs lifecycle events (orphan-output cleanup), account deletions and the relay of media's product events; unset: none of the three (a warning says so), media serves all the same",
  ),
  JOBS_ADDR: doc(
    hostPort(defaultAddressOf('jobs')),
    'jobs: asked (`GetJobStatus`) before an output is cleaned up, and (`CountActiveJobsUsingAsset`) before an owner deletes an asset',
  ),
  COMMUNITY_ADDR: doc(
    hostPort(defaultAddressOf('community')),
    'community: asked (`CountPublishedPostsUsingAsset`) before an owner deletes an asset a published post may show',
  ),
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

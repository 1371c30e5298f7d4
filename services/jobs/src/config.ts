import { bool, hostPort, int, oneOf, port, str, url, type ConfigOf } from '@atelier/config';
import { grpcSecurityConfigSpec } from '@atelier/grpc';
import { GRACEFUL_SHUTDOWN } from '@atelier/lifecycle';
import { accountDeletionConfigSpec, natsConfigSpec, natsStreamsConfigSpec } from '@atelier/nats';
import { productEventsConfigSpec } from '@atelier/outbox';

/** Environment variables of the jobs service (README, "Configuration"). */
export const jobsConfigSpec = {
  GRPC_PORT: port(50053),
  /** Plaintext grpc.health.v1 only, for Kubernetes probes (they speak no TLS); 0 = a free port (tests). */
  GRPC_HEALTH_PORT: port(50153),
  /** Serve gRPC server reflection (off: it lists every method to any caller with a certificate). */
  GRPC_REFLECTION: bool(false),
  /** Mutual TLS: this service's certificate and key, the platform CA, the identities' trust domain. */
  ...grpcSecurityConfigSpec,
  /** Prometheus scrapes http://<pod>:METRICS_PORT/metrics; 0 asks the OS for a free port (tests). */
  METRICS_PORT: port(9464),
  DATABASE_URL: url({ protocols: ['postgres:', 'postgresql:'], default: 'postgres://postgres@127.0.0.1:5432/atelier', secret: true }),
  ...natsConfigSpec,
  ...natsStreamsConfigSpec,
  ...accountDeletionConfigSpec,
  /** The key of the user_ref in product events (the same in jobs, media and community); required. */
  ...productEventsConfigSpec,
  CATALOG_ADDR: hostPort('127.0.0.1:50051'),
  MEDIA_ADDR: hostPort('127.0.0.1:50052'),
  /**
   * CreateJob's cache of catalog models and styles (peers/catalog-cache.ts): an entry is dropped when
   * catalog announces its change on NATS, or after this long at the latest (0: no cache).
   */
  CATALOG_CACHE_TTL_MS: int({ default: 30_000, min: 0, max: 600_000 }),
  CATALOG_CACHE_MAX_ENTRIES: int({ default: 10_000, min: 1, max: 1_000_000 }),
  /**
   * The app's pet service (atelier.pets.v1 PetDirectoryService), asked whether a job's pet is
   * visible to its user (peers/pet-directory.ts). The defaults are npm start's pet-directory-sim;
   * the chart sets both from its values.
   */
  PET_DIRECTORY_ADDR: hostPort('127.0.0.1:50056'),
  /** The identity its certificate must prove, spiffe://<GRPC_TRUST_DOMAIN>/svc/<this>. */
  PET_DIRECTORY_IDENTITY: str({ default: 'pet-directory-sim', pattern: /^[a-z][a-z0-9-]{0,62}$/ }),
  /** How long a create waits for its answer; past it the create is 503 with Retry-After, nothing written. */
  PET_DIRECTORY_DEADLINE_MS: int({ default: 1_000, min: 50, max: 30_000 }),
  /** How long a "visible" answer is reused for the same user and pet (peers/pet-visibility-cache.ts); 0: asked every time. */
  PET_DIRECTORY_CACHE_TTL_MS: int({ default: 30_000, min: 0, max: 300_000 }),
  PET_DIRECTORY_CACHE_MAX_ENTRIES: int({ default: 10_000, min: 1, max: 1_000_000 }),
  LOG_LEVEL: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
  SHUTDOWN_GRACE_MS: int({ default: 10_000, min: 0, max: 600_000 }),
  QUOTA_DAILY_LIMIT: int({ default: 20, min: 0, max: 1_000_000 }),
  /**
   * Generations per user per UTC calendar month, counted like the daily ones (domain/quota.ts); at
   * least QUOTA_DAILY_LIMIT (checkQuotaLimits). 300 is 15 days of the default daily allowance: a
   * user who creates most days never meets it, one who spends the whole daily allowance every day
   * stops halfway through the month — a user's monthly cost at the vendor is bounded by 300
   * generations rather than by 31 × 20. Set it from the vendor budget per user.
   */
  QUOTA_MONTHLY_LIMIT: int({ default: 300, min: 0, max: 100_000_000 }),
  QUOTA_MAX_IN_FLIGHT: int({ default: 2, min: 0, max: 10_000 }),
  QUOTA_IN_FLIGHT_RETRY_AFTER_SECONDS: int({ default: 10, min: 1, max: 3600 }),
  LEASE_TTL_MS: int({ default: 60_000, min: 1_000, max: 3_600_000 }),
  REAPER_INTERVAL_MS: int({ default: 10_000, min: 100, max: 3_600_000 }),
  /** A queued job overdue this long with no dispatch on its way is dispatched again (a lost message). */
  DISPATCH_STALE_AFTER_MS: int({ default: 120_000, min: 1_000, max: 7 * 24 * 3_600_000 }),
  DISPATCH_SWEEP_INTERVAL_MS: int({ default: 30_000, min: 100, max: 3_600_000 }),
  /**
   * How often queued jobs past their start deadline are ended (background/start-deadline-sweeper.ts).
   * A late sweep starts nothing late — the claim refuses such jobs — it only makes them look queued longer.
   */
  START_DEADLINE_SWEEP_INTERVAL_MS: int({ default: 1_000, min: 100, max: 600_000 }),
  OUTBOX_POLL_INTERVAL_MS: int({ default: 1_000, min: 10, max: 60_000 }),
  OUTBOX_LOCK_TIMEOUT_MS: int({ default: 30_000, min: 1_000, max: 600_000 }),
  OUTBOX_MAX_ATTEMPTS: int({ default: 10, min: 1, max: 1000 }),
  /** WatchJob streams wake on change notices; this slow re-read only covers a lost notice. */
  WATCH_REREAD_MS: int({ default: 15_000, min: 100, max: 300_000 }),
  DB_POOL_MAX: int({ default: 20, min: 1, max: 500 }),
  /** Published outbox rows are deleted this long after publication (README, "Retention"). */
  OUTBOX_RETENTION_MS: int({ default: 24 * 3_600_000, min: 60_000, max: 365 * 24 * 3_600_000 }),
  /** job_events of jobs terminal this many days are pruned, their histories kept; 0 keeps every event. */
  JOB_EVENTS_RETENTION_DAYS: int({ default: 90, min: 0, max: 36_500 }),
  RETENTION_INTERVAL_MS: int({ default: 60_000, min: 100, max: 24 * 3_600_000 }),
  RETENTION_BATCH_SIZE: int({ default: 1_000, min: 100, max: 10_000 }),
  RETENTION_BATCH_PAUSE_MS: int({ default: 100, min: 0, max: 60_000 }),
} as const;

export type JobsConfig = ConfigOf<typeof jobsConfigSpec>;

/**
 * On SIGTERM in-flight calls may finish within SHUTDOWN_GRACE_MS; the process forces its exit 5 s
 * later at the latest (the chart's grace period is derived from both).
 */
export const shutdownPolicy = GRACEFUL_SHUTDOWN;

/**
 * A month always holds a whole day: a monthly limit below the daily one would make the daily
 * limit a promise the month breaks on the first day.
 */
export function checkQuotaLimits(
  config: Pick<JobsConfig, 'QUOTA_DAILY_LIMIT' | 'QUOTA_MONTHLY_LIMIT'>,
): { variable: string; problem: string }[] {
  if (config.QUOTA_MONTHLY_LIMIT >= config.QUOTA_DAILY_LIMIT) return [];
  return [
    {
      variable: 'QUOTA_MONTHLY_LIMIT',
      problem: `must be at least QUOTA_DAILY_LIMIT (${config.QUOTA_DAILY_LIMIT}): a month always holds a whole day`,
    },
  ];
}

/**
 * The stale-dispatch sweep takes a queued job without a dispatch published within
 * DISPATCH_STALE_AFTER_MS for one whose message was lost: published dispatches must outlive that
 * window, or pruning them would make the sweep dispatch healthy jobs again.
 */
export function checkRetention(
  config: Pick<JobsConfig, 'OUTBOX_RETENTION_MS' | 'DISPATCH_STALE_AFTER_MS'>,
): { variable: string; problem: string }[] {
  if (config.OUTBOX_RETENTION_MS > config.DISPATCH_STALE_AFTER_MS) return [];
  return [
    {
      variable: 'OUTBOX_RETENTION_MS',
      problem: `must be longer than DISPATCH_STALE_AFTER_MS (${config.DISPATCH_STALE_AFTER_MS}): the stale-dispatch sweep reads the dispatches published within it`,
    },
  ];
}

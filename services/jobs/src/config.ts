import { accountDeletionConfigSpec } from '@atelier/account-deletion';
import { bool, doc, hostPort, int, oneOf, optional, port, str, url, type ConfigOf } from '@atelier/config';
import { grpcSecurityConfigSpec } from '@atelier/grpc';
import { GRACEFUL_SHUTDOWN } from '@atelier/lifecycle';
import { natsConfigSpec, natsStreamsConfigSpec } from '@atelier/nats';
import { productEventsConfigSpec } from '@atelier/outbox';
import { defaultAddressOf } from '@atelier/platform';

/** Environment variables of the jobs service (docs/configuration.md is generated from this spec). */
export const jobsConfigSpec = {
  GRPC_PORT: doc(port(50053), 'gRPC listen port (mutual TLS), all interfaces: JobsService, JobExecutionService, JobsAdminService'),
  GRPC_HEALTH_PORT: doc(port(50153), 'plaintext `grpc.health.v1` only, for Kubernetes probes (they speak no TLS); 0: a free port (tests)'),
  GRPC_REFLECTION: doc(bool(false), 'serve gRPC server reflection (off: it lists every method to any caller with a certificate)'),
  ...grpcSecurityConfigSpec,
  METRICS_PORT: doc(port(9464), 'Prometheus `GET /metrics` over HTTP; 0: a free port (tests)'),
  DATABASE_URL: doc(
    url({ protocols: ['postgres:', 'postgresql:'], default: 'postgres://postgres@127.0.0.1:5432/atelier', secret: true }),
    'Postgres; the service uses its schema `jobs` only',
  ),
  ...natsConfigSpec,
  ...natsStreamsConfigSpec,
  ...accountDeletionConfigSpec,
  ...productEventsConfigSpec,
  CATALOG_ADDR: doc(hostPort(defaultAddressOf('catalog')), 'catalog: CreateJob reads the model and style (cached, below)'),
  MEDIA_ADDR: doc(hostPort(defaultAddressOf('media')), "media: CreateJob checks the input assets are the user's and ready"),
  CATALOG_CACHE_TTL_MS: doc(
    int({ default: 30_000, min: 0, max: 600_000 }),
    "CreateJob's cache of catalog models and styles (`peers/catalog-cache.ts`): an entry is dropped when catalog announces its change on NATS, when the NATS link comes back, or after this long at the latest; 0: no cache",
  ),
  CATALOG_CACHE_MAX_ENTRIES: doc(int({ default: 10_000, min: 1, max: 1_000_000 }), 'catalog entries that cache keeps at most'),
  PET_DIRECTORY_ADDR: doc(
    hostPort(defaultAddressOf('pet-directory-sim')),
    "the app's pet service (`atelier.pets.v1`), asked whether a create's pet is the caller's to name; the default is `npm start`'s pet-directory-sim, the chart sets the real one",
  ),
  PET_DIRECTORY_IDENTITY: doc(
    str({ default: 'pet-directory-sim', pattern: /^[a-z][a-z0-9-]{0,62}$/ }),
    "the identity the pet service's certificate must prove, `spiffe://<GRPC_TRUST_DOMAIN>/svc/<this>`",
  ),
  PET_DIRECTORY_DEADLINE_MS: doc(
    int({ default: 1_000, min: 50, max: 30_000 }),
    "how long a create waits for the pet service's answer (per attempt); past it the create is 503 with Retry-After, nothing written",
  ),
  PET_DIRECTORY_CACHE_TTL_MS: doc(
    int({ default: 30_000, min: 0, max: 300_000 }),
    'how long a "visible" answer is reused per (user, pet) (`peers/pet-visibility-cache.ts`); "not visible" and errors are never kept; 0: asked every time',
  ),
  PET_DIRECTORY_CACHE_MAX_ENTRIES: doc(
    int({ default: 10_000, min: 1, max: 1_000_000 }),
    '(user, pet) answers kept at most, the oldest dropped first',
  ),
  LOG_LEVEL: doc(oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'), 'the least severe level logged'),
  SHUTDOWN_GRACE_MS: doc(int({ default: 10_000, min: 0, max: 600_000 }), 'how long in-flight calls may run after SIGTERM'),
  QUOTA_DAILY_LIMIT: doc(
    int({ default: 20, min: 0, max: 1_000_000 }),
    'generations per user per UTC day that count (charged, or not given back: `domain/quota.ts`); then 429 `GENERATION_QUOTA_EXCEEDED`',
  ),
  /**
   * 300 is 15 days of the default daily allowance: a user who creates most days never meets it, one
   * who spends the whole daily allowance every day stops halfway through the month — a user's
   * monthly cost at the vendor is bounded by 300 generations rather than by 31 × 20.
   */
  QUOTA_MONTHLY_LIMIT: doc(
    int({ default: 300, min: 0, max: 100_000_000 }),
    'generations per user per UTC calendar month, counted like the daily ones; at least QUOTA_DAILY_LIMIT (a month holds a whole day). Set it from the vendor budget per user',
  ),
  QUOTA_MAX_IN_FLIGHT: doc(int({ default: 2, min: 0, max: 10_000 }), "a user's queued and running generations at most"),
  CREDENTIALS_KEK_FILE: doc(
    optional(str({ maxLength: 4096 })),
    'a mounted Secret file of key-encryption keys for users\' own vendor keys: JSON `{"current": "<id>", "keys": {"<id>": "<base64 of 32 bytes>"}}` (docs/credentials.md), read again when it changes',
    'unset: users cannot register keys of their own (FAILED_PRECONDITION CREDENTIALS_UNAVAILABLE)',
  ),
  CREDENTIALS_MAX_PER_USER: doc(int({ default: 5, min: 1, max: 50 }), 'vendor keys one user may have registered at once'),
  QUOTA_IN_FLIGHT_RETRY_AFTER_SECONDS: doc(
    int({ default: 10, min: 1, max: 3600 }),
    'the Retry-After of the in-flight refusal (the daily and monthly ones say when their period ends)',
  ),
  LEASE_TTL_MS: doc(
    int({ default: 60_000, min: 1_000, max: 3_600_000 }),
    "a claim's lease; workers heartbeat every third of it. A job whose worker froze or vanished is taken over by another worker within about this long (docs/fault-model.md)",
  ),
  RECONCILIATION_SETTLE_MS: doc(
    int({ default: 120_000, min: 1_000, max: 24 * 3_600_000 }),
    "reconciliation with the vendor covers predictions created up to this long ago, not later: the ledger rows of a window's calls are written by then",
  ),
  RECONCILIATION_MAX_WINDOW_MS: doc(
    int({ default: 3_600_000, min: 1_000, max: 7 * 24 * 3_600_000 }),
    'the longest window one reconciliation run covers (the first run looks this far back); a worker that fell behind catches up window by window',
  ),
  RECONCILIATION_LEASE_MS: doc(
    int({ default: 120_000, min: 1_000, max: 3_600_000 }),
    "a reconciliation run's lease, renewed by every page the worker submits: a run not renewed within it is abandoned and its window offered again",
  ),
  REAPER_INTERVAL_MS: doc(
    int({ default: 10_000, min: 100, max: 3_600_000 }),
    'the longest the lease reaper sleeps: it wakes as the earliest lease expires and requeues or fails it; keep it at most `LEASE_TTL_MS`, or a lease taken while it sleeps may be reaped up to the difference late',
  ),
  DISPATCH_STALE_AFTER_MS: doc(
    int({ default: 120_000, min: 1_000, max: 7 * 24 * 3_600_000 }),
    'a queued job overdue this long with no dispatch pending or published within it (its message lost, or its dispatch row dead) is dispatched again',
  ),
  PROVIDER_GATE_WATCH_INTERVAL_MS: doc(
    int({ default: 15_000, min: 100, max: 3_600_000 }),
    "how often the providers' budget and limit gauges are read and a budget past 80 % today is warned of (once per budget per UTC day)",
  ),
  DISPATCH_SWEEP_INTERVAL_MS: doc(int({ default: 30_000, min: 100, max: 3_600_000 }), 'how often the stale-dispatch sweep looks'),
  START_DEADLINE_SWEEP_INTERVAL_MS: doc(
    int({ default: 1_000, min: 100, max: 600_000 }),
    'how often queued jobs past their start deadline are cancelled with `START_DEADLINE_EXCEEDED`; a late sweep starts nothing late (the claim refuses such jobs), it only shows the end later',
  ),
  OUTBOX_POLL_INTERVAL_MS: doc(int({ default: 1_000, min: 10, max: 60_000 }), 'longest the outbox relay sleeps without a wake-up'),
  OUTBOX_LOCK_TIMEOUT_MS: doc(
    int({ default: 30_000, min: 1_000, max: 600_000 }),
    'a claimed outbox row unsettled for this long goes to another relay',
  ),
  OUTBOX_MAX_ATTEMPTS: doc(
    int({ default: 10, min: 1, max: 1000 }),
    'publishes the broker refuses before an outbox row is `dead` (a publish nobody answers counts for nothing)',
  ),
  WATCH_REREAD_MS: doc(
    int({ default: 15_000, min: 100, max: 300_000 }),
    'WatchJob streams wake when their job changes on any replica (LISTEN/NOTIFY); this slow re-read only covers a lost notice',
  ),
  DB_POOL_MAX: doc(
    int({ default: 20, min: 1, max: 500 }),
    "pg connections of the service's pool (every pool: 5 s connect timeout, 15 s `statement_timeout`, at most 1000 callers waiting)",
  ),
  OUTBOX_RETENTION_MS: doc(
    int({ default: 24 * 3_600_000, min: 60_000, max: 365 * 24 * 3_600_000 }),
    'published outbox rows are deleted this long after publication; longer than DISPATCH_STALE_AFTER_MS (checked at start-up); pending, processing and dead rows are never pruned',
  ),
  JOB_EVENTS_RETENTION_DAYS: doc(
    int({ default: 90, min: 0, max: 36_500 }),
    "the `job_events` of jobs that ended this many days ago are pruned, each job's history archived first so its views do not change; 0 keeps every event",
  ),
  RETENTION_INTERVAL_MS: doc(
    int({ default: 60_000, min: 100, max: 24 * 3_600_000 }),
    'how often one replica prunes (the others skip their turn)',
  ),
  RETENTION_BATCH_SIZE: doc(int({ default: 1_000, min: 100, max: 10_000 }), 'rows per delete statement, each its own short transaction'),
  RETENTION_REDACTION_BATCH_SIZE: doc(
    int({ default: 200, min: 10, max: 10_000 }),
    "ended jobs per redaction statement, and input images per batch (docs/retention.md): a redaction rewrites whole rows and every index entry, and a smaller commit keeps the hot path's commits from waiting behind its WAL",
  ),
  RETENTION_BATCH_PAUSE_MS: doc(
    int({ default: 100, min: 0, max: 60_000 }),
    'the pause between two delete statements; after a redaction statement or a batch of input images, at least as long as it took',
  ),
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

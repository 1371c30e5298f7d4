import { bool, hostPort, int, oneOf, port, url, type ConfigCheck, type ConfigOf, type VarSpec } from '@atelier/config';
import { grpcSecurityConfigSpec } from '@atelier/grpc';
import { GRACEFUL_SHUTDOWN } from '@atelier/lifecycle';
import { accountDeletionConfigSpec, natsConfigSpec, natsStreamsConfigSpec } from '@atelier/nats';
import { DEFAULT_ENDPOINTS_PER_USER } from './domain/endpoint-rules.js';
import { DEFAULT_RETRY_SCHEDULE_MS, parseRetrySchedule } from './domain/retry-schedule.js';
import { parseAllowedHosts } from './ssrf/target-check.js';

const retrySchedule: VarSpec<number[]> = {
  describe: 'comma-separated delays in milliseconds',
  parse: (raw) => (raw === undefined || raw.trim() === '' ? [...DEFAULT_RETRY_SCHEDULE_MS] : parseRetrySchedule(raw)),
};

const hostList: VarSpec<ReadonlySet<string>> = {
  describe: 'comma-separated host names or IP addresses',
  parse: (raw) => parseAllowedHosts(raw ?? ''),
};

/** Environment variables of the webhooks service (README, "Webhooks"). */
export const webhooksConfigSpec = {
  GRPC_PORT: port(50055),
  /** Plaintext grpc.health.v1 only, for Kubernetes probes (they speak no TLS); 0 = a free port (tests). */
  GRPC_HEALTH_PORT: port(50155),
  /** Serve gRPC server reflection (off: it lists every method to any caller with a certificate). */
  GRPC_REFLECTION: bool(false),
  /** Mutual TLS: this service's certificate and key, the platform CA, the identities' trust domain. */
  ...grpcSecurityConfigSpec,
  /** Prometheus scrapes http://<pod>:METRICS_PORT/metrics; 0 asks the OS for a free port (tests). */
  METRICS_PORT: port(9464),
  DATABASE_URL: url({ protocols: ['postgres:', 'postgresql:'], default: 'postgres://postgres@127.0.0.1:5432/atelier', secret: true }),
  /** The lifecycle events come from JetStream (durable consumer webhooks-fanout). */
  ...natsConfigSpec,
  ...natsStreamsConfigSpec,
  ...accountDeletionConfigSpec,
  /** Jobs says whose job an event is about, and confirms it (GetJobStatus). */
  JOBS_ADDR: hostPort('127.0.0.1:50053'),
  LOG_LEVEL: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
  SHUTDOWN_GRACE_MS: int({ default: 10_000, min: 0, max: 600_000 }),
  /** Hosts that may be called whatever they resolve to (private, loopback …), over http too. Empty: none. */
  WEBHOOK_ALLOWED_HOSTS: hostList,
  /** Delays between failed attempts; past the last one a delivery has failed. Default 5 s, 5 min, 30 min, 2 h, 5 h, 10 h. */
  WEBHOOK_RETRY_SCHEDULE_MS: retrySchedule,
  /** One POST is given up after this. */
  WEBHOOK_TIMEOUT_MS: int({ default: 10_000, min: 100, max: 60_000 }),
  /** A claimed delivery whose attempt was never recorded (a crash) is due again after this. */
  WEBHOOK_LEASE_MS: int({ default: 60_000, min: 1_000, max: 3_600_000 }),
  WEBHOOK_POLL_INTERVAL_MS: int({ default: 1_000, min: 10, max: 60_000 }),
  /** Deliveries sent at once per replica. */
  WEBHOOK_CONCURRENCY: int({ default: 16, min: 1, max: 256 }),
  WEBHOOK_ENDPOINTS_PER_USER: int({ default: DEFAULT_ENDPOINTS_PER_USER, min: 1, max: 1_000 }),
} as const;

export type WebhooksConfig = ConfigOf<typeof webhooksConfigSpec>;

/**
 * A lease shorter than an attempt can last would let another sender claim a delivery whose POST
 * is still in flight: the receiver would get it twice for nothing.
 */
export const checkLeaseOutlastsAttempt: ConfigCheck<typeof webhooksConfigSpec> = (config) =>
  config.WEBHOOK_LEASE_MS < 2 * (config.WEBHOOK_TIMEOUT_MS + 1_000)
    ? [
        {
          variable: 'WEBHOOK_LEASE_MS',
          problem: `must be at least twice WEBHOOK_TIMEOUT_MS + 1 s (${2 * (config.WEBHOOK_TIMEOUT_MS + 1_000)} ms)`,
        },
      ]
    : [];

/**
 * On SIGTERM in-flight calls and attempts may finish within SHUTDOWN_GRACE_MS; the process forces
 * its exit 5 s later at the latest (the chart's grace period is derived from both).
 */
export const shutdownPolicy = GRACEFUL_SHUTDOWN;

import { accountDeletionConfigSpec } from '@atelier/account-deletion';
import { bool, doc, hostPort, int, oneOf, port, url, type ConfigCheck, type ConfigOf, type VarSpec } from '@atelier/config';
import { grpcSecurityConfigSpec } from '@atelier/grpc';
import { GRACEFUL_SHUTDOWN } from '@atelier/lifecycle';
import { natsConfigSpec, natsStreamsConfigSpec } from '@atelier/nats';
import { defaultAddressOf } from '@atelier/platform';
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

/** Environment variables of the webhooks service (docs/configuration.md is generated from this spec). */
export const webhooksConfigSpec = {
  GRPC_PORT: doc(port(50055), 'gRPC listen port (mutual TLS; callers: the gateway only), all interfaces'),
  GRPC_HEALTH_PORT: doc(port(50155), 'plaintext `grpc.health.v1` only, for Kubernetes probes (they speak no TLS); 0: a free port (tests)'),
  GRPC_REFLECTION: doc(bool(false), 'serve gRPC server reflection (off: it lists every method to any caller with a certificate)'),
  ...grpcSecurityConfigSpec,
  METRICS_PORT: doc(port(9464), 'Prometheus `GET /metrics` over HTTP; 0: a free port (tests)'),
  DATABASE_URL: doc(
    url({ protocols: ['postgres:', 'postgresql:'], default: 'postgres://postgres@127.0.0.1:5432/atelier', secret: true }),
    'Postgres; the service uses its schema `webhooks` only',
  ),
  /** The lifecycle events come from JetStream (durable consumer webhooks-fanout). */
  ...natsConfigSpec,
  ...natsStreamsConfigSpec,
  ...accountDeletionConfigSpec,
  JOBS_ADDR: doc(hostPort(defaultAddressOf('jobs')), 'jobs: whose job an event is about, and whether it really ended so (`GetJobStatus`)'),
  LOG_LEVEL: doc(oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'), 'the least severe level logged'),
  SHUTDOWN_GRACE_MS: doc(int({ default: 10_000, min: 0, max: 600_000 }), 'how long in-flight calls and attempts may run after SIGTERM'),
  WEBHOOK_ALLOWED_HOSTS: doc(
    hostList,
    'comma-separated hosts exempt from the address check (private, loopback …), plain `http` allowed (chart: `webhooks.allowedHosts`)',
    'none',
  ),
  WEBHOOK_RETRY_SCHEDULE_MS: doc(
    retrySchedule,
    'delays after each failed attempt (5 s, 5 min, 30 min, 2 h, 5 h, 10 h); past the last, the delivery has failed',
    DEFAULT_RETRY_SCHEDULE_MS.join(','),
  ),
  WEBHOOK_TIMEOUT_MS: doc(int({ default: 10_000, min: 100, max: 60_000 }), 'one POST is given up after this'),
  WEBHOOK_LEASE_MS: doc(
    int({ default: 60_000, min: 1_000, max: 3_600_000 }),
    'a claimed delivery whose attempt was never recorded (a crash) is due again after this; at least twice WEBHOOK_TIMEOUT_MS + 1 s',
  ),
  WEBHOOK_POLL_INTERVAL_MS: doc(
    int({ default: 1_000, min: 10, max: 60_000 }),
    'how often due deliveries are looked for (new events and replays wake the sender at once)',
  ),
  WEBHOOK_CONCURRENCY: doc(int({ default: 16, min: 1, max: 256 }), 'deliveries claimed and sent at once per replica'),
  WEBHOOK_ENDPOINTS_PER_USER: doc(
    int({ default: DEFAULT_ENDPOINTS_PER_USER, min: 1, max: 1_000 }),
    'endpoints per user; one more is 409 `40920` `WEBHOOK_ENDPOINT_LIMIT`',
  ),
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

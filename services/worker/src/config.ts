import { bool, doc, hostPort, int, oneOf, optional, port, str, url, type ConfigOf } from '@atelier/config';
import { grpcSecurityConfigSpec } from '@atelier/grpc';
import type { ShutdownPolicy } from '@atelier/lifecycle';
import { natsConfigSpec, natsStreamsConfigSpec } from '@atelier/nats';
import { defaultAddressOf } from '@atelier/platform';
import { CRASH_POINTS } from './domain/crash-points.js';

/** Environment variables of the worker (docs/configuration.md is generated from this spec). */
export const workerConfigSpec = {
  ...grpcSecurityConfigSpec,
  HTTP_PORT: doc(port(9464), '`/metrics` (Prometheus), `/healthz`, `/readyz`'),
  JOBS_ADDR: doc(hostPort(defaultAddressOf('jobs')), "jobs' execution API (claims, heartbeats, progress, completions)"),
  MEDIA_ADDR: doc(hostPort(defaultAddressOf('media')), 'media: inputs read, outputs stored'),
  CATALOG_ADDR: doc(
    hostPort(defaultAddressOf('catalog')),
    'catalog, read at start-up and after every catalog change notice: while an enabled model has no executor or provider client here, `/readyz` is 503 naming it',
  ),
  ...natsConfigSpec,
  ...natsStreamsConfigSpec,
  PROVIDER_URL: doc(
    url({ protocols: ['http:', 'https:'], default: `http://${defaultAddressOf('provider-sim')}` }),
    'the AI vendor serving provider code `sim` (provider-sim locally)',
  ),
  PROVIDER_API_KEY: doc(
    str({ default: 'local-development', secret: true }),
    "the platform's vendor API key when PROVIDER_API_KEY_FILE is unset (local runs); never logged",
  ),
  PROVIDER_API_KEY_FILE: doc(
    optional(str({ maxLength: 4096 })),
    "a mounted Secret file holding the platform's vendor API key; wins over PROVIDER_API_KEY and is read again when it changes (rotation without a restart, docs/credentials.md)",
  ),
  PROVIDER_API_KEY_POLL_MS: doc(
    int({ default: 5_000, min: 100, max: 300_000 }),
    'how often PROVIDER_API_KEY_FILE is looked at again beside the change events (a Secret mount swaps a symlink)',
  ),
  PROVIDER_OUTPUT_HOSTS: doc(
    optional(str()),
    "comma-separated hosts (`host` for any port, or `host:port`) the vendor's `output_url` may point at; any other host, scheme or a redirect is an invalid output",
    'the host of PROVIDER_URL',
  ),
  PROVIDER_OUTPUT_MAX_BYTES: doc(
    int({ default: 25 * 1024 * 1024, min: 1024, max: 200 * 1024 * 1024 }),
    'a vendor output above this is an invalid output (`VALIDATION_OUTPUT_TOO_LARGE`), counted while it streams',
  ),
  WORKER_CONCURRENCY_INTERACTIVE: doc(int({ default: 2, min: 0, max: 1024 }), 'interactive jobs this process runs at once'),
  WORKER_CONCURRENCY_BACKGROUND: doc(int({ default: 1, min: 0, max: 1024 }), 'background jobs this process runs at once'),
  WORKER_ACK_WAIT_INTERACTIVE_MS: doc(
    int({ default: 30_000, min: 1_000, max: 3_600_000 }),
    "the interactive consumer's ack deadline: a message not acked nor marked working within it is redelivered",
  ),
  WORKER_ACK_WAIT_BACKGROUND_MS: doc(int({ default: 60_000, min: 1_000, max: 3_600_000 }), "the background consumer's ack deadline"),
  /**
   * A worker that freezes (SIGSTOP, a stalled VM, a partition) is still handed dispatches into the
   * pulls it sent before, until they expire; the lease of a job it held expires at least two thirds
   * of a lease after its freeze (it heartbeats every third), so with pulls shorter than that the
   * job's new dispatch goes to a live worker (docs/fault-model.md).
   */
  WORKER_PULL_EXPIRES_MS: doc(
    int({ default: 5_000, min: 1_000, max: 30_000 }),
    "how long each dispatch and provider-cancel pull waits at NATS: a frozen worker's pulls lapse within it, so a job taken over from it (or a vendor cancel) goes to a live worker; keep it under two thirds of jobs' `LEASE_TTL_MS`",
  ),
  WORKER_AWAIT_JOBS: doc(
    bool(true),
    'wait at jobs for new jobs while slots are free (AwaitJobs): a job created at the replica this worker waits at is claimed for it and answered at once, its dispatch skipping NATS; off, every job comes through NATS',
  ),
  /**
   * A worker that freezes with a wait open at jobs is still handed the jobs created there until the
   * wait ends; claimed for it, they start elsewhere only once their lease expires. As with the
   * pulls (WORKER_PULL_EXPIRES_MS), a short wait keeps that window small (docs/fault-model.md).
   */
  WORKER_AWAIT_WAIT_MS: doc(
    int({ default: 5_000, min: 1_000, max: 30_000 }),
    "how long one AwaitJobs call waits at jobs before it is answered empty and sent again: a frozen worker is handed jobs for at most this long after it froze, and those wait out jobs' `LEASE_TTL_MS`; keep it at WORKER_PULL_EXPIRES_MS or under",
  ),
  /**
   * A call answered is sent again a moment later: with few calls open, the commits of that moment
   * find nobody waiting and go through NATS. Measured with one worker of 1 000 slots under 256
   * creators: 4 calls handed over 59–83 % of the jobs, 16 calls 78–98 % (bench/README.md).
   */
  WORKER_AWAIT_CALLS: doc(
    int({ default: 16, min: 1, max: 64 }),
    'AwaitJobs calls a worker keeps open at once, its free slots shared between them (never more calls than free slots): more calls leave fewer moments with nobody waiting',
  ),
  /**
   * -1 by default: an outage of the jobs service must not use a job's dispatch up (its job is not
   * lost either way: the stale-dispatch sweep dispatches it again).
   */
  WORKER_MAX_DELIVER: doc(
    int({ default: -1, min: -1, max: 1_000 }),
    'deliveries of one dispatch message before JetStream drops it; -1: never',
  ),
  WORKER_MAX_ACK_PENDING: doc(
    int({ default: 1_000, min: 1, max: 100_000 }),
    "dispatch messages all workers of a queue may hold unacknowledged at once (the durable consumer's `max_ack_pending`, shared by every pod): at least pods × concurrency, or pods sit idle",
  ),
  WORKER_POLL_INTERVAL_MS: doc(int({ default: 500, min: 10, max: 60_000 }), 'how often a running prediction is polled'),
  WORKER_DECODER_IDLE_MS: doc(
    int({ default: 15_000, min: 0, max: 600_000 }),
    "how long the output decoder process (sharp, kept out of the worker's own memory) lives after its last decode; 0: it ends after each",
  ),
  WORKER_DRAIN_TIMEOUT_MS: doc(
    int({ default: 25_000, min: 0, max: 600_000 }),
    'on SIGTERM, running jobs may finish within this; the rest are handed back (`ReleaseJob`)',
  ),
  WORKER_TIMEOUT_CAP_MS: doc(
    optional(int({ min: 1_000, max: 600_000 })),
    "caps every attempt's time budget below its job definition's (a vendor SLA, an operator's choice)",
  ),
  RECONCILE_INTERVAL_MS: doc(
    int({ default: 600_000, min: 1_000, max: 24 * 3_600_000 }),
    "how often this worker offers to reconcile the vendor's predictions with jobs (one worker of all gets each window); it lists them with PROVIDER_API_KEY",
  ),
  LOG_LEVEL: doc(oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'), 'the least severe level logged'),
  WORKER_CRASH_POINT: doc(
    optional(oneOf(CRASH_POINTS)),
    'tests only: SIGKILL this process at the named point of the first job that reaches it',
  ),
} as const;

export type WorkerConfig = ConfigOf<typeof workerConfigSpec>;

/**
 * On SIGTERM running jobs may finish within WORKER_DRAIN_TIMEOUT_MS; the rest are then handed back
 * to jobs (calls of up to 10 s), so the process forces its exit 10 s later at the latest (the
 * chart's grace period is derived from both).
 */
export const shutdownPolicy: ShutdownPolicy<'WORKER_DRAIN_TIMEOUT_MS'> = { drainVariable: 'WORKER_DRAIN_TIMEOUT_MS', marginMs: 10_000 };

import { hostPort, int, oneOf, optional, port, str, url, type ConfigOf } from '@atelier/config';
import { grpcSecurityConfigSpec } from '@atelier/grpc';
import type { ShutdownPolicy } from '@atelier/lifecycle';
import { natsConfigSpec, natsStreamsConfigSpec } from '@atelier/nats';
import { CRASH_POINTS } from './domain/crash-points.js';

/** Environment variables of the worker (README, "Configuration"). */
export const workerConfigSpec = {
  ...grpcSecurityConfigSpec,
  /** Metrics and health over HTTP. */
  HTTP_PORT: port(9464),
  JOBS_ADDR: hostPort('127.0.0.1:50053'),
  MEDIA_ADDR: hostPort('127.0.0.1:50052'),
  /** Catalog, read for the check that this worker can run every enabled model (/readyz). */
  CATALOG_ADDR: hostPort('127.0.0.1:50051'),
  ...natsConfigSpec,
  ...natsStreamsConfigSpec,
  /** The AI vendor (provider-sim locally) serving provider code `sim`. */
  PROVIDER_URL: url({ protocols: ['http:', 'https:'], default: 'http://127.0.0.1:8090' }),
  PROVIDER_API_KEY: str({ default: 'local-development', secret: true }),
  /**
   * Hosts the vendor's output URLs may point at, comma-separated (`host` for any port, or
   * `host:port`). Unset: the host of PROVIDER_URL. Anything else is an invalid output.
   */
  PROVIDER_OUTPUT_HOSTS: optional(str()),
  /** A vendor output above this is an invalid output (counted while it streams). */
  PROVIDER_OUTPUT_MAX_BYTES: int({ default: 25 * 1024 * 1024, min: 1024, max: 200 * 1024 * 1024 }),
  WORKER_CONCURRENCY_INTERACTIVE: int({ default: 2, min: 0, max: 1024 }),
  WORKER_CONCURRENCY_BACKGROUND: int({ default: 1, min: 0, max: 1024 }),
  /** A delivered message not acked nor marked working within this is redelivered. */
  WORKER_ACK_WAIT_INTERACTIVE_MS: int({ default: 30_000, min: 1_000, max: 3_600_000 }),
  WORKER_ACK_WAIT_BACKGROUND_MS: int({ default: 60_000, min: 1_000, max: 3_600_000 }),
  /**
   * Deliveries of one dispatch before JetStream drops it; -1 (the default) never does: an outage
   * of the jobs service must not use a job's dispatch up (its job is not lost either way: the
   * stale-dispatch sweep dispatches it again).
   */
  WORKER_MAX_DELIVER: int({ default: -1, min: -1, max: 1_000 }),
  /**
   * Dispatch messages all workers of one queue may hold unacknowledged at once (the consumer's
   * max_ack_pending, shared by every pod): at least pods × concurrency, or pods sit idle.
   */
  WORKER_MAX_ACK_PENDING: int({ default: 1_000, min: 1, max: 100_000 }),
  /** How often a running prediction is polled. */
  WORKER_POLL_INTERVAL_MS: int({ default: 500, min: 10, max: 60_000 }),
  /** On SIGTERM, running jobs may finish within this; the rest are handed back. */
  WORKER_DRAIN_TIMEOUT_MS: int({ default: 25_000, min: 0, max: 600_000 }),
  /** Caps every attempt's time budget below its job definition's (a vendor SLA, an operator's choice). */
  WORKER_TIMEOUT_CAP_MS: optional(int({ min: 1_000, max: 600_000 })),
  LOG_LEVEL: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
  /** Tests only: SIGKILL this process at the named point of the first job that reaches it. */
  WORKER_CRASH_POINT: optional(oneOf(CRASH_POINTS)),
} as const;

export type WorkerConfig = ConfigOf<typeof workerConfigSpec>;

/**
 * On SIGTERM running jobs may finish within WORKER_DRAIN_TIMEOUT_MS; the rest are then handed back
 * to jobs (calls of up to 10 s), so the process forces its exit 10 s later at the latest (the
 * chart's grace period is derived from both).
 */
export const shutdownPolicy: ShutdownPolicy<'WORKER_DRAIN_TIMEOUT_MS'> = { drainVariable: 'WORKER_DRAIN_TIMEOUT_MS', marginMs: 10_000 };

import { Counter, Gauge, Histogram, createMetricsRegistry } from '@atelier/metrics';

/** Prometheus series of the worker, served at /metrics next to /healthz (server.ts). */
export class WorkerMetrics {
  readonly registry = createMetricsRegistry('worker');
  readonly outcomes = new Counter({
    name: 'atelier_worker_jobs_total',
    help: 'Attempts the worker finished, by job type and outcome',
    labelNames: ['job_type', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly duration = new Histogram({
    name: 'atelier_worker_job_duration_seconds',
    help: 'Time from claim to recorded outcome, by job type',
    labelNames: ['job_type'] as const,
    buckets: [0.005, 0.01, 0.05, 0.1, 0.5, 1, 2, 5, 10, 30, 60, 120, 300],
    registers: [this.registry],
  });
  readonly inFlight = new Gauge({
    name: 'atelier_worker_jobs_in_flight',
    help: 'Jobs this worker is running now, by queue',
    labelNames: ['queue'] as const,
    registers: [this.registry],
  });
  readonly handedOver = new Counter({
    name: 'atelier_worker_jobs_handed_over_total',
    help: 'Jobs jobs claimed for this worker while it waited (AwaitJobs), not through NATS, by queue',
    labelNames: ['queue'] as const,
    registers: [this.registry],
  });
  readonly providerCalls = new Counter({
    name: 'atelier_provider_calls_total',
    help: 'Calls made to AI vendors, by provider code, kind (submit, poll, cancel, output_fetch) and outcome (ok, rate_limited, refused, unavailable, aborted)',
    labelNames: ['provider', 'kind', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly providerSubmissions = new Counter({
    name: 'atelier_worker_provider_submissions_total',
    help: 'Predictions submitted to a provider, by provider code',
    labelNames: ['provider'] as const,
    registers: [this.registry],
  });
  readonly claimsPaused = new Counter({
    name: 'atelier_worker_claims_paused_total',
    help: "Dispatches handed back because their provider's gate was closed (budget, concurrency, vendor_throttled)",
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });
  readonly permitWait = new Histogram({
    name: 'atelier_worker_provider_permit_wait_seconds',
    help: "Time a call to the vendor waited for a permit of the provider's shared request-rate cap",
    labelNames: ['provider'] as const,
    buckets: [0, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60],
    registers: [this.registry],
  });
  readonly outputRejections = new Counter({
    name: 'atelier_worker_output_rejected_total',
    help: "Vendor outputs refused by their job type's output rules, by vendor model and reason (undecodable, type, size, blank)",
    labelNames: ['model', 'reason'] as const,
    registers: [this.registry],
  });
  readonly providerThrottles = new Counter({
    name: 'atelier_worker_provider_throttles_total',
    help: 'Vendor 429s this worker met (each pauses the provider for every worker until its Retry-After)',
    labelNames: ['provider'] as const,
    registers: [this.registry],
  });
}

import { Counter, Gauge, Histogram, createMetricsRegistry } from '@atelier/metrics';

/** Prometheus series of the gateway. */
export class HttpMetrics {
  readonly registry = createMetricsRegistry('gateway');
  readonly requestDuration = new Histogram({
    name: 'atelier_gateway_http_request_duration_seconds',
    help: 'HTTP requests by method, route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly jobViewCache = new Counter({
    name: 'atelier_gateway_job_view_cache_total',
    help: 'GET /creation/jobs/{id}: answered from a remembered terminal view (hit) or asked of jobs (miss)',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });
  readonly queuedJobViews = new Counter({
    name: 'atelier_gateway_queued_job_view_total',
    help: 'GET /creation/jobs/{id} of a job not known to be finished: answered from the followed view of a queued job (hit) or asked of jobs (miss)',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });
  /** How many queued jobs are followed now: set once the server's QueuedJobViews exists. */
  followedQueuedJobs: () => number = () => 0;
  readonly queuedJobsFollowed: Gauge = new Gauge({
    name: 'atelier_gateway_queued_jobs_followed',
    help: 'Queued jobs this replica follows with WatchJob to answer their reads (at most 10 000)',
    registers: [this.registry],
    collect: (): void => this.queuedJobsFollowed.set(this.followedQueuedJobs()),
  });
}

import { Counter, Histogram, createMetricsRegistry } from '@atelier/metrics';

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
}

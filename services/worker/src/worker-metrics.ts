import type { Server } from 'node:http';
import { Counter, Gauge, Histogram, createMetricsRegistry, serveMetrics } from '@atelier/metrics';

// The CommonJS module, as libs/metrics takes it: an ES import of node:http loads the bundled
// undici (fetch) at start-up, which an idle worker does not need.
const { createServer } = process.getBuiltinModule('node:http');

/** Prometheus series of the worker, served at /metrics next to /healthz. */
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
  readonly providerSubmissions = new Counter({
    name: 'atelier_worker_provider_submissions_total',
    help: 'Predictions submitted to a provider, by provider code',
    labelNames: ['provider'] as const,
    registers: [this.registry],
  });

  /** Serves /metrics, /healthz (the process runs) and /readyz (connected and consuming). */
  listen(port: number, ready: () => boolean): Promise<Server> {
    const server = createServer((request, response) => {
      if (request.url === '/metrics') {
        void serveMetrics(this.registry, request, response);
        return;
      }
      if (request.url === '/healthz' || request.url === '/readyz') {
        const ok = request.url === '/healthz' || ready();
        response.writeHead(ok ? 200 : 503, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ status: ok ? 'ok' : 'not ready' }));
        return;
      }
      response.writeHead(404);
      response.end();
    });
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, () => resolve(server));
    });
  }
}

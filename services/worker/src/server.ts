import type { Server } from 'node:http';
import { serveMetrics, type Registry } from '@atelier/metrics';

// The CommonJS module, as libs/metrics takes it: an ES import of node:http loads the bundled
// undici (fetch) at start-up, which an idle worker does not need.
const { createServer } = process.getBuiltinModule('node:http');

/**
 * The worker's one server (it serves no gRPC): /metrics from the registry, /healthz (the process
 * runs) and /readyz (connected, consuming, and able to run every enabled catalog model; its body
 * names the models it cannot run).
 */
export function startWorkerServer(
  registry: Registry,
  port: number,
  ready: () => boolean,
  readinessDetails: () => Record<string, unknown> = () => ({}),
): Promise<Server> {
  const server = createServer((request, response) => {
    if (request.url === '/metrics') {
      void serveMetrics(registry, request, response);
      return;
    }
    if (request.url === '/healthz' || request.url === '/readyz') {
      const ok = request.url === '/healthz' || ready();
      response.writeHead(ok ? 200 : 503, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ status: ok ? 'ok' : 'not ready', ...(request.url === '/readyz' ? readinessDetails() : {}) }));
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

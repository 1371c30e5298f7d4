import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

// Not `import { createServer } from 'node:http'`: an ES import of node:http fills its module
// namespace, whose WebSocket / MessageEvent getters load the whole bundled undici (fetch) — about
// 14 MB of resident memory in every process that never uses it. The CommonJS module is the same
// module without that (Fastify and the AWS SDK load it that way too).
const { createServer } = process.getBuiltinModule('node:http');

export interface MetricsServer {
  readonly port: number;
  close(): Promise<void>;
}

/** Answers GET /metrics from the registry (the text format Prometheus scrapes). */
export async function serveMetrics(registry: Registry, request: IncomingMessage, response: ServerResponse): Promise<void> {
  try {
    const body = await registry.metrics();
    response.writeHead(200, { 'content-type': registry.contentType });
    response.end(body);
  } catch {
    response.writeHead(500, { 'content-type': 'text/plain' });
    response.end('metrics collection failed\n');
  }
}

/**
 * A small HTTP server for Prometheus beside a gRPC service: GET /metrics, anything else 404.
 * Port 0 picks a free port (tests).
 */
export async function startMetricsServer(options: { registry: Registry; port: number; host?: string }): Promise<MetricsServer> {
  const server = createServer((request, response) => {
    if (request.method === 'GET' && request.url?.split('?')[0] === '/metrics') {
      void serveMetrics(options.registry, request, response);
      return;
    }
    response.writeHead(404, { 'content-type': 'text/plain' });
    response.end('not found: metrics are at /metrics\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '0.0.0.0', () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

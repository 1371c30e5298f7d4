import type { FastifyInstance } from 'fastify';
import type { GatewayContext } from '../gateway-context.js';
import type { HttpMetrics } from '../http/http-metrics.js';

/** Probes, metrics and the API contract; none needs a token. */
export function registerOpsRoutes(app: FastifyInstance, context: GatewayContext, metrics: HttpMetrics): void {
  const hidden = { schema: { hide: true } };
  app.get('/healthz', hidden, async () => ({ status: 'ok' }));
  app.get('/readyz', hidden, async (_request, reply) => {
    const ready = await context.peersReady();
    reply.code(ready ? 200 : 503);
    return { status: ready ? 'ok' : 'peers not ready' };
  });
  app.get('/metrics', hidden, async (_request, reply) => {
    reply.header('content-type', metrics.registry.contentType);
    return metrics.registry.metrics();
  });
  app.get('/openapi.json', hidden, async () => app.swagger());
}

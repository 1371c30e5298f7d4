import type { FastifyInstance } from 'fastify';
import type { GatewayContext } from '../gateway-context.js';
import type { HttpMetrics } from '../http/http-metrics.js';

const allServing = (health: Record<string, string>) => Object.values(health).every((status) => status === 'SERVING');

/**
 * Probes, metrics and the API contract; none needs a token.
 *
 * /readyz waits, once, for every peer to be SERVING (a new pod takes traffic only when it can
 * serve it), then stays ready: were it to follow the peers, one peer's outage would take every
 * gateway pod out of its Service and fail the whole API instead of the routes that need that
 * peer (they answer 503 / 50300 on their own). /readyz/peers tells operators the peers' state now.
 */
export function registerOpsRoutes(app: FastifyInstance, context: GatewayContext, metrics: HttpMetrics): void {
  const hidden = { schema: { hide: true } };
  let peersWereReady = false;
  app.get('/healthz', hidden, async () => ({ status: 'ok' }));
  app.get('/readyz', hidden, async (_request, reply) => {
    peersWereReady ||= allServing(await context.peerHealth());
    reply.code(peersWereReady ? 200 : 503);
    return { status: peersWereReady ? 'ok' : 'waiting for peers' };
  });
  app.get('/readyz/peers', hidden, async (_request, reply) => {
    const peers = await context.peerHealth();
    reply.code(allServing(peers) ? 200 : 503);
    return { peers };
  });
  app.get('/metrics', hidden, async (_request, reply) => {
    reply.header('content-type', metrics.registry.contentType);
    return metrics.registry.metrics();
  });
  app.get('/openapi.json', hidden, async () => app.swagger());
}

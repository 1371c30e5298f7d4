import { createLogger } from '@atelier/logging';
import type { GatewayContext } from './gateway-context.js';
import { buildGateway } from './server.js';

const refuse = () => {
  throw new Error('the OpenAPI document is built without peers or tokens');
};
/** Every peer call and token check fails: building the document never makes one. */
const unreachable: object = new Proxy(refuse, { get: () => unreachable });

/**
 * The gateway's OpenAPI document (what /openapi.json serves), built from the routes alone without
 * any service, key or network: the console's typed client is generated from it offline.
 */
export async function buildOpenApiDocument(): Promise<Record<string, unknown>> {
  const context: GatewayContext = {
    peers: unreachable as GatewayContext['peers'],
    tokens: unreachable as GatewayContext['tokens'],
    logger: createLogger({ service: 'gateway-openapi', level: 'silent' }),
    upstreamDeadlineMs: 1000,
    sseKeepAliveMs: 1000,
    sseMaxStreamsPerUser: 1,
    peerHealth: async () => ({}),
  };
  const app = await buildGateway(context);
  try {
    await app.ready();
    return app.swagger() as unknown as Record<string, unknown>;
  } finally {
    await app.close();
  }
}

import { createLogger } from '@atelier/logging';
import type { FastifyInstance } from 'fastify';
import { createTokenVerifier } from '../auth/token-verifier.js';
import type { GatewayContext, GatewayPeers } from '../gateway-context.js';
import { buildGateway } from '../server.js';
import { TEST_AUDIENCE, TEST_ISSUER, testTokenKey } from './gateway-harness.js';

/**
 * The gateway built in process over fakes of its gRPC peers, and tokens it trusts: so a route's
 * tests drive it with `app.inject` (what reaches the peers, what the client is told) without
 * starting any service. `options` replaces the defaults (silent logs, a 1 s upstream deadline,
 * 5 streams per user, no peer health). The caller closes `app`.
 */
export async function gatewayOverFakePeers(
  peers: GatewayPeers,
  options: Partial<Omit<GatewayContext, 'peers' | 'tokens'>> = {},
): Promise<{
  app: FastifyInstance;
  /** A bearer token for `subject` with `roles` (default none), valid for 10 minutes. */
  token(subject: string, roles?: string[]): Promise<string>;
}> {
  const key = await testTokenKey();
  const app = await buildGateway({
    peers,
    tokens: await createTokenVerifier({ publicKeyPem: key.gatewayEnv.JWT_PUBLIC_KEY!, issuer: TEST_ISSUER, audience: TEST_AUDIENCE }),
    logger: createLogger({ service: 'gateway-test', level: 'silent' }),
    upstreamDeadlineMs: 1000,
    sseKeepAliveMs: 60_000,
    sseMaxStreamsPerUser: 5,
    peerHealth: async () => ({}),
    ...options,
  });
  return { app, token: (subject, roles = []) => key.sign(subject, { roles }) };
}

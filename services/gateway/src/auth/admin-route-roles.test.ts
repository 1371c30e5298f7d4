import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError } from '@atelier/errors';
import type { FastifyInstance } from 'fastify';
import type { GatewayPeers } from '../gateway-context.js';
import { buildOpenApiDocument } from '../openapi-document.js';
import { gatewayOverFakePeers } from '../test-support/gateway-over-fake-peers.js';
import { ADMIN_ROUTE_ROLES } from './admin-route-roles.js';
import { OPERATOR_ROLES, roleAllows, type OperatorRole } from './operator-roles.js';

// Each operator route against each role, from the one table (admin-route-roles.ts): a role below
// the route's is refused 403 before any peer is asked; the route's role and every higher one get
// through (to fakes of the peers that answer 404). A route the gateway serves without an entry in
// the table fails here.
const peerThatFindsNothing = new Proxy(
  {},
  {
    get: (_target, method) => (method === 'then' ? undefined : () => Promise.reject(new NotFoundError(String(method)))),
  },
);
const peers = new Proxy({}, { get: () => peerThatFindsNothing }) as GatewayPeers;

let app: FastifyInstance;
const tokens = new Map<OperatorRole | 'user', string>();

beforeAll(async () => {
  const gateway = await gatewayOverFakePeers(peers);
  app = gateway.app;
  tokens.set('user', await gateway.token('alice'));
  for (const role of OPERATOR_ROLES) tokens.set(role, await gateway.token(`ops-${role}`, [role]));
});

afterAll(async () => {
  await app?.close();
});

/** The operator routes the gateway serves, as `<METHOD> <fastify route>`. */
async function servedOperatorRoutes(): Promise<string[]> {
  const document = (await buildOpenApiDocument()) as { paths: Record<string, Record<string, unknown>> };
  return Object.entries(document.paths)
    .filter(([path]) => path.startsWith('/admin-api/'))
    .flatMap(([path, operations]) =>
      Object.keys(operations).map((method) => `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`),
    )
    .sort();
}

const concrete = (route: string) =>
  route.replace(/:(\w+)/g, (_match, name: string) => (name === 'code' ? 'some-code' : '019a3c1e-7f00-7000-8000-00000000a001'));

describe('operator routes by role', () => {
  it('gives every operator route the gateway serves a role, and names no route it does not serve', async () => {
    expect(Object.keys(ADMIN_ROUTE_ROLES).sort()).toEqual(await servedOperatorRoutes());
  });

  it('is the table docs/operator-roles.md lists', () => {
    const doc = readFileSync(new URL('../../../../docs/operator-roles.md', import.meta.url), 'utf8');
    const listed = Object.fromEntries(
      [...doc.matchAll(/^\| `([A-Z]+ \/admin-api[^`]*)` +\| `(\w+)` +\|$/gm)].map((row) => [row[1], row[2]]),
    );
    expect(listed).toEqual(ADMIN_ROUTE_ROLES);
  });

  for (const [route, needed] of Object.entries(ADMIN_ROUTE_ROLES)) {
    it(`${route}: ${needed} and above`, async () => {
      const [method, path] = route.split(' ') as [string, string];
      for (const [who, token] of tokens) {
        const answer = await app.inject({
          method: method as 'GET',
          url: concrete(path),
          headers: { authorization: `Bearer ${token}` },
          ...(method === 'GET' || method === 'DELETE' ? {} : { payload: {} }),
        });
        const allowed = who !== 'user' && roleAllows(who, needed);
        if (allowed) expect(answer.statusCode, `${who}: ${answer.body}`).not.toBe(403);
        else {
          expect(answer.statusCode, `${who}: ${answer.body}`).toBe(403);
          expect(answer.json()).toMatchObject({ error: { name: 'FORBIDDEN' } });
        }
      }
    });
  }

  it('tells each operator their role and exactly the routes it may call (what the console shows)', async () => {
    for (const role of OPERATOR_ROLES) {
      const answer = await app.inject({ method: 'GET', url: '/admin-api/me', headers: { authorization: `Bearer ${tokens.get(role)}` } });
      expect(answer.statusCode).toBe(200);
      const me = answer.json<{ subject: string; role: string; allowedRoutes: string[] }>();
      expect(me).toMatchObject({ subject: `ops-${role}`, role });
      expect(me.allowedRoutes.sort()).toEqual(
        Object.entries(ADMIN_ROUTE_ROLES)
          .filter(([, needed]) => roleAllows(role, needed))
          .map(([route]) => route)
          .sort(),
      );
    }
    expect(
      new Set(
        (await app.inject({ method: 'GET', url: '/admin-api/me', headers: { authorization: `Bearer ${tokens.get('viewer')}` } })).json()
          .allowedRoutes,
      ),
    ).not.toContain('POST /admin-api/jobs/:jobId/cancel');
  });
});

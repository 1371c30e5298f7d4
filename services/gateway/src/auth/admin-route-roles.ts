import type { FastifyRequest } from 'fastify';
import { HttpError } from '../http/http-error.js';
import { callerOf } from './authenticate.js';
import { roleAllows, type OperatorRole } from './operator-roles.js';

/**
 * The least role each operator route needs, by `<METHOD> <route>`: the one place this is decided
 * (docs/operator-roles.md lists it). A route missing here is refused to everyone — a new route
 * must be given a role — and admin-route-roles.test.ts fails for it.
 */
export const ADMIN_ROUTE_ROLES: Readonly<Record<string, OperatorRole>> = {
  'GET /admin-api/me': 'viewer',
  'GET /admin-api/overview': 'viewer',
  'GET /admin-api/jobs': 'viewer',
  'GET /admin-api/jobs/:jobId': 'viewer',
  'GET /admin-api/jobs/:jobId/provider-calls': 'viewer',
  'GET /admin-api/outbox/dead': 'viewer',
  'GET /admin-api/outbox/replays': 'viewer',
  'GET /admin-api/catalog': 'viewer',
  'GET /admin-api/spend': 'viewer',
  'GET /admin-api/provider-budgets': 'viewer',
  'GET /admin-api/provider-limits': 'viewer',
  'GET /admin-api/reconciliation/findings': 'viewer',
  'GET /admin-api/audit': 'admin',
  'POST /admin-api/jobs/:jobId/cancel': 'operator',
  'POST /admin-api/jobs/:jobId/retry': 'operator',
  'POST /admin-api/outbox/:id/replay': 'operator',
  'POST /admin-api/reconciliation/findings/:id/acknowledge': 'operator',
  'PUT /admin-api/catalog/models/:code': 'admin',
  'POST /admin-api/catalog/models/:id/disable': 'admin',
  'POST /admin-api/catalog/models/:id/enable': 'admin',
  'PUT /admin-api/catalog/styles/:code': 'admin',
  'POST /admin-api/catalog/styles/:id/disable': 'admin',
  'POST /admin-api/catalog/styles/:id/enable': 'admin',
  'PUT /admin-api/provider-budgets': 'admin',
  'DELETE /admin-api/provider-budgets': 'admin',
  'PUT /admin-api/provider-limits': 'admin',
  'DELETE /admin-api/provider-limits': 'admin',
};

/** The least role a route needs; HEAD is GET's. undefined: the route has no entry. */
export function roleNeededFor(method: string, url: string): OperatorRole | undefined {
  return ADMIN_ROUTE_ROLES[`${method === 'HEAD' ? 'GET' : method} ${url}`];
}

/** Operator routes: the caller's highest role must reach the route's (403 naming it otherwise). */
export async function requireRouteRole(request: FastifyRequest): Promise<void> {
  const caller = callerOf(request);
  const needed = roleNeededFor(request.method, request.routeOptions.url ?? '');
  if (needed === undefined) throw new HttpError('FORBIDDEN', 'this route is given to no role');
  if (!roleAllows(caller.operatorRole, needed)) throw new HttpError('FORBIDDEN', `this route needs the ${needed} role or a higher one`);
}

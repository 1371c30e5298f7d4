import type { commonV1 } from '@atelier/contracts';
import type { FastifyRequest } from 'fastify';
import { callerOf } from './authenticate.js';

/**
 * Who asks, for the audit log of the service an operator route changes: the operator's subject,
 * the role the route let them act in (requireRouteRole checked it reaches the route's), and the
 * route as the role table names it ("POST /admin-api/jobs/:jobId/retry").
 */
export function operatorActorOf(request: FastifyRequest): commonV1.OperatorActor {
  const caller = callerOf(request);
  return {
    subject: caller.userId,
    // Operator routes run behind requireRouteRole: a caller without a role never gets here.
    role: caller.operatorRole ?? 'viewer',
    route: `${request.method} ${request.routeOptions.url ?? request.url}`,
  };
}

import type { FastifyInstance } from 'fastify';
import { ADMIN_ROUTE_ROLES } from '../auth/admin-route-roles.js';
import { callerOf } from '../auth/authenticate.js';
import { OPERATOR_ROLES, roleAllows } from '../auth/operator-roles.js';
import { object, responses } from '../http/schemas.js';

const example = {
  subject: 'ops-carol',
  role: 'operator',
  allowedRoutes: [
    'GET /admin-api/jobs',
    'GET /admin-api/jobs/:jobId',
    'POST /admin-api/jobs/:jobId/cancel',
    'POST /admin-api/jobs/:jobId/retry',
  ],
};

/**
 * Who the signed-in operator is and what they may call: the console shows only the actions the
 * role allows (docs/operator-roles.md), from the same table the gateway enforces.
 */
export function registerAdminMeRoute(app: FastifyInstance): void {
  app.get(
    '/admin-api/me',
    {
      schema: {
        operationId: 'adminMe',
        tags: ['operators'],
        summary: "The signed-in operator: their highest role and the operator routes it may call (the console's actions follow it)",
        response: responses({
          200: {
            ...object({
              subject: { type: 'string' },
              role: { type: 'string', enum: [...OPERATOR_ROLES] },
              allowedRoutes: {
                type: 'array',
                items: { type: 'string' },
                description:
                  '`<METHOD> <route>` of each operator route the role may call, routes written as the gateway matches them (`:jobId`)',
              },
            }),
            examples: [example],
          },
        }),
      },
    },
    async (request) => {
      const caller = callerOf(request);
      // The route's own role check let only operators through.
      const role = caller.operatorRole!;
      const allowedRoutes = Object.entries(ADMIN_ROUTE_ROLES)
        .filter(([, needed]) => roleAllows(role, needed))
        .map(([route]) => route);
      return { subject: caller.userId, role, allowedRoutes };
    },
  );
}

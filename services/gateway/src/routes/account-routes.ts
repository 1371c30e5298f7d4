import type { FastifyInstance } from 'fastify';
import type { commonV1 } from '@atelier/contracts';
import { callerOf } from '../auth/authenticate.js';
import type { GatewayContext } from '../gateway-context.js';
import { nullableString, object, responses } from '../http/schemas.js';

/** The services holding a user's data, each deleting its own part when it consumes the deletion event. */
const PARTS = ['jobs', 'media', 'community'] as const;
const partStatuses = ['pending', 'in_progress', 'completed'] as const;

const deletionSchema = {
  ...object({
    status: {
      type: 'string',
      enum: ['not_requested', 'in_progress', 'completed'],
      description: 'completed once every service has deleted its part',
    },
    requestedAt: { ...nullableString, format: 'date-time' },
    completedAt: { ...nullableString, format: 'date-time', description: 'when the last service finished' },
    parts: {
      type: 'array',
      items: object({
        service: { type: 'string', enum: [...PARTS] },
        status: {
          type: 'string',
          enum: [...partStatuses],
          description: 'pending: the service has not seen the deletion yet (it is down, or the event is on its way)',
        },
        completedAt: { ...nullableString, format: 'date-time' },
        removed: { type: 'integer', minimum: 0, description: 'jobs, assets or posts deleted' },
      }),
    },
  }),
};

const at = (date: Date | undefined) => date?.toISOString() ?? null;
const partOf = (service: (typeof PARTS)[number], part: commonV1.AccountDeletionPart | undefined) => ({
  service,
  status: part?.completedAt ? 'completed' : part?.started ? 'in_progress' : 'pending',
  completedAt: at(part?.completedAt),
  removed: Number(part?.removed ?? 0),
});

/**
 * DELETE /api/v1/me and GET /api/v1/me/deletion: in-app account deletion (app stores require it).
 * The request is durable at once (jobs records it with its event in one transaction); every
 * service then deletes its part on its own, resuming after a crash; the progress is each
 * service's own answer.
 */
export function registerAccountRoutes(app: FastifyInstance, { peers }: GatewayContext): void {
  async function deletionOf(userId: string) {
    const jobs = await peers.jobs.getAccountDeletion({ userId });
    if (!jobs.deletionId) return { status: 'not_requested', requestedAt: null, completedAt: null, parts: [] };
    const [media, community] = await Promise.all([
      peers.media.getAccountDeletion({ userId }),
      peers.community.getAccountDeletion({ userId }),
    ]);
    const parts = [partOf('jobs', jobs.jobs), partOf('media', media.part), partOf('community', community.part)];
    const done = parts.every((part) => part.status === 'completed');
    return {
      status: done ? 'completed' : 'in_progress',
      requestedAt: at(jobs.requestedAt),
      completedAt: done
        ? parts
            .map((part) => part.completedAt!)
            .sort()
            .at(-1)!
        : null,
      parts,
    };
  }

  app.delete<{ Params: Record<string, never> }>(
    '/api/v1/me',
    {
      schema: {
        operationId: 'deleteAccount',
        tags: ['account'],
        summary:
          'Delete the caller’s account and all its data: jobs (in-flight ones cancelled, at the AI vendor too), images, posts. Idempotent; 202 with the progress',
        response: responses({ 202: deletionSchema }),
      },
    },
    async (request, reply) => {
      const { userId } = callerOf(request);
      await peers.jobs.requestAccountDeletion({ userId });
      reply.code(202);
      return deletionOf(userId);
    },
  );

  app.get(
    '/api/v1/me/deletion',
    {
      schema: {
        operationId: 'getAccountDeletion',
        tags: ['account'],
        summary: 'How far the deletion of the caller’s account is, service by service',
        response: responses({ 200: deletionSchema }),
      },
    },
    async (request) => deletionOf(callerOf(request).userId),
  );
}

import type { FastifyInstance } from 'fastify';
import { jobsV1 } from '@atelier/contracts';
import { MAX_USER_ID_LENGTH } from '@atelier/validation';
import { callerOf } from '../auth/authenticate.js';
import type { GatewayContext } from '../gateway-context.js';
import { badRequest } from '../http/http-error.js';
import { MAX_INT64, object, page, pageQuery, ref, responses, uuid } from '../http/schemas.js';
import { internalsSeenBy, toAdminJobDto, toJobDetailsDto, toOutboxEventDto, toOutboxReplayDto } from './dto-mapper.js';
import { jobQueues, jobStatuses } from '../http/api-enums.js';
import { ADMIN_EXAMPLES } from './admin-examples.js';
import { operatorActorOf } from '../auth/operator-actor.js';
import { dateTimeParam } from '../http/date-time-param.js';

interface AdminJobsQuery {
  jobType?: string;
  status?: string;
  queue?: string;
  userId?: string;
  createdAfter?: string;
  createdBefore?: string;
  cursor?: string;
  limit: number;
}

/** Operator routes (role admin, checked by the admin hook). Internal error messages are shown here only. */
export function registerAdminRoutes(app: FastifyInstance, { peers }: GatewayContext): void {
  app.get<{ Querystring: AdminJobsQuery }>(
    '/admin-api/jobs',
    {
      schema: {
        operationId: 'adminListJobs',
        tags: ['operators'],
        summary: "Every user's jobs, filtered, with internal error messages",
        querystring: pageQuery({
          jobType: { type: 'string', maxLength: 64 },
          status: { type: 'string', enum: jobStatuses.words },
          queue: { type: 'string', enum: jobQueues.words },
          userId: { type: 'string', maxLength: MAX_USER_ID_LENGTH },
          createdAfter: { type: 'string', format: 'date-time' },
          createdBefore: { type: 'string', format: 'date-time' },
        }),
        response: responses({ 200: page('AdminJob') }),
      },
    },
    async (request) => {
      const q = request.query;
      const result = await peers.jobsAdmin.listAllJobs({
        jobType: q.jobType,
        status: q.status ? jobStatuses.fromApi(q.status)! : jobsV1.JobStatus.UNSPECIFIED,
        queue: q.queue ? jobQueues.fromApi(q.queue)! : jobsV1.JobQueue.UNSPECIFIED,
        userId: q.userId,
        createdAfter: dateTimeParam(q.createdAfter, 'querystring.createdAfter'),
        createdBefore: dateTimeParam(q.createdBefore, 'querystring.createdBefore'),
        pageSize: q.limit,
        pageToken: q.cursor ?? '',
      });
      return {
        items: result.jobs.map((job) => toAdminJobDto(job, internalsSeenBy(callerOf(request).operatorRole))),
        nextCursor: result.nextPageToken || null,
      };
    },
  );

  app.post<{ Params: { jobId: string } }>(
    '/admin-api/jobs/:jobId/retry',
    {
      schema: {
        operationId: 'adminRetryJob',
        tags: ['operators'],
        summary: 'Retry a failed or cancelled job as a new job linked to it',
        params: object({ jobId: uuid }),
        response: responses({ 201: object({ job: ref('AdminJob') }) }),
      },
    },
    async (request, reply) => {
      const { job } = await peers.jobsAdmin.retryJob({
        jobId: request.params.jobId,
        operatorId: callerOf(request).userId,
        actor: operatorActorOf(request),
      });
      reply.code(201);
      return { job: toAdminJobDto(job!, internalsSeenBy(callerOf(request).operatorRole)) };
    },
  );

  app.get<{ Params: { jobId: string } }>(
    '/admin-api/jobs/:jobId',
    {
      schema: {
        operationId: 'adminGetJob',
        tags: ['operators'],
        summary: 'One job with its whole story: every transition, each attempt with its timings, internal errors',
        params: object({ jobId: uuid }),
        response: responses({
          200: {
            ...object({
              job: ref('AdminJob'),
              events: { type: 'array', items: ref('JobEvent'), description: 'oldest first' },
              attempts: { type: 'array', items: ref('JobAttempt'), description: 'oldest first' },
            }),
            examples: [ADMIN_EXAMPLES.jobDetails],
          },
        }),
      },
    },
    async (request) =>
      toJobDetailsDto(
        await peers.jobsAdmin.getJobDetails({ jobId: request.params.jobId }),
        internalsSeenBy(callerOf(request).operatorRole),
      ),
  );

  app.post<{ Params: { jobId: string } }>(
    '/admin-api/jobs/:jobId/cancel',
    {
      schema: {
        operationId: 'adminCancelJob',
        tags: ['operators'],
        summary: "Cancel any user's queued or running job, as its owner's cancel would (409 once it ended)",
        params: object({ jobId: uuid }),
        response: responses({ 200: { ...object({ job: ref('AdminJob') }), examples: [{ job: ADMIN_EXAMPLES.cancelledJob }] } }),
      },
    },
    async (request) => {
      const { job } = await peers.jobsAdmin.cancelJob({
        jobId: request.params.jobId,
        operatorId: callerOf(request).userId,
        actor: operatorActorOf(request),
      });
      return { job: toAdminJobDto(job!, internalsSeenBy(callerOf(request).operatorRole)) };
    },
  );

  app.get<{ Querystring: { cursor?: string; limit: number } }>(
    '/admin-api/outbox/dead',
    {
      schema: {
        operationId: 'adminListDeadOutboxEvents',
        tags: ['operators'],
        summary: 'Outbox events that used up their publish attempts',
        querystring: pageQuery(),
        response: responses({ 200: page('OutboxEvent') }),
      },
    },
    async (request) => {
      const result = await peers.jobsAdmin.listDeadOutboxEvents({ pageSize: request.query.limit, pageToken: request.query.cursor ?? '' });
      return { items: result.events.map(toOutboxEventDto), nextCursor: result.nextPageToken || null };
    },
  );

  app.post<{ Params: { id: string } }>(
    '/admin-api/outbox/:id/replay',
    {
      schema: {
        operationId: 'adminReplayOutboxEvent',
        tags: ['operators'],
        summary: 'Put a dead outbox event back to pending with a fresh attempt budget',
        params: object({ id: { type: 'string', pattern: '^[1-9][0-9]{0,18}$' } }),
        response: responses({ 200: object({ event: ref('OutboxEvent') }) }),
      },
    },
    async (request) => {
      // The pattern bounds the digits; a 19-digit id may still be above the bigint maximum.
      if (BigInt(request.params.id) > MAX_INT64) throw badRequest(`params.id must be at most ${MAX_INT64} (an outbox event id)`);
      const { event } = await peers.jobsAdmin.replayOutboxEvent({
        eventId: request.params.id,
        operatorId: callerOf(request).userId,
        actor: operatorActorOf(request),
      });
      return { event: toOutboxEventDto(event!) };
    },
  );

  app.get<{ Querystring: { cursor?: string; limit: number } }>(
    '/admin-api/outbox/replays',
    {
      schema: {
        operationId: 'adminListOutboxReplays',
        tags: ['operators'],
        summary: 'The replay audit: who asked to replay which event, when, and what it found; newest first',
        querystring: pageQuery(),
        response: responses({ 200: { ...page('OutboxReplay'), examples: [ADMIN_EXAMPLES.replays] } }),
      },
    },
    async (request) => {
      const result = await peers.jobsAdmin.listOutboxReplays({ pageSize: request.query.limit, pageToken: request.query.cursor ?? '' });
      return { items: result.replays.map(toOutboxReplayDto), nextCursor: result.nextPageToken || null };
    },
  );
}

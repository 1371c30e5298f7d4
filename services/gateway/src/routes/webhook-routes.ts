import type { FastifyInstance } from 'fastify';
import { webhooksV1 } from '@atelier/contracts';
import { MAX_WEBHOOK_DESCRIPTION_LENGTH, MAX_WEBHOOK_URL_LENGTH } from '@atelier/validation';
import { callerOf } from '../auth/authenticate.js';
import type { GatewayContext } from '../gateway-context.js';
import { idParam, nullableString, object, pageQuery, responses, uuid } from '../http/schemas.js';

/** The event types an endpoint may subscribe to (the webhooks service validates them too). */
export const WEBHOOK_EVENT_TYPES = ['job.succeeded', 'job.failed', 'job.cancelled'] as const;

const dateTime = { type: 'string', format: 'date-time' } as const;
const nullableDateTime = { type: ['string', 'null'], format: 'date-time' } as const;
const deliveryStatuses = ['pending', 'delivered', 'failed'] as const;

const endpointSchema = object({
  id: uuid,
  url: { type: 'string' },
  eventTypes: { type: 'array', items: { type: 'string', enum: WEBHOOK_EVENT_TYPES }, description: 'empty: every event type' },
  description: { type: 'string' },
  createdAt: dateTime,
});

const attemptSchema = object({
  attempt: { type: 'integer', minimum: 1, description: 'numbers every attempt of the delivery, replays included' },
  startedAt: dateTime,
  durationMs: { type: 'integer', minimum: 0 },
  statusCode: { type: 'integer', description: "the endpoint's HTTP status; 0: no answer (see error)" },
  error: nullableString,
});

const deliverySchema = object({
  id: { ...uuid, description: 'the webhook-id header: the same for every attempt and replay; dedupe by it' },
  endpointId: uuid,
  eventId: { type: 'string' },
  eventType: { type: 'string', enum: WEBHOOK_EVENT_TYPES },
  status: { type: 'string', enum: deliveryStatuses },
  attemptCount: { type: 'integer', minimum: 0 },
  nextAttemptAt: { ...nullableDateTime, description: 'while pending: when the next attempt is due' },
  createdAt: dateTime,
  deliveredAt: nullableDateTime,
  attempts: { type: 'array', items: attemptSchema },
});

const STATUS_WORDS: Record<webhooksV1.DeliveryStatus, (typeof deliveryStatuses)[number]> = {
  [webhooksV1.DeliveryStatus.UNSPECIFIED]: 'pending',
  [webhooksV1.DeliveryStatus.PENDING]: 'pending',
  [webhooksV1.DeliveryStatus.DELIVERED]: 'delivered',
  [webhooksV1.DeliveryStatus.FAILED]: 'failed',
  [webhooksV1.DeliveryStatus.UNRECOGNIZED]: 'pending',
};

const toEndpointDto = (endpoint: webhooksV1.Endpoint) => ({
  id: endpoint.id,
  url: endpoint.url,
  eventTypes: endpoint.eventTypes,
  description: endpoint.description,
  createdAt: endpoint.createdAt!.toISOString(),
});

const toDeliveryDto = (delivery: webhooksV1.Delivery) => ({
  id: delivery.id,
  endpointId: delivery.endpointId,
  eventId: delivery.eventId,
  eventType: delivery.eventType,
  status: STATUS_WORDS[delivery.status],
  attemptCount: delivery.attemptCount,
  nextAttemptAt: delivery.nextAttemptAt?.toISOString() ?? null,
  createdAt: delivery.createdAt!.toISOString(),
  deliveredAt: delivery.deliveredAt?.toISOString() ?? null,
  attempts: delivery.attempts.map((attempt) => ({
    attempt: attempt.attempt,
    startedAt: attempt.startedAt!.toISOString(),
    durationMs: attempt.durationMs,
    statusCode: attempt.statusCode,
    error: attempt.error ?? null,
  })),
});

interface CreateEndpointBody {
  url: string;
  eventTypes?: string[];
  description?: string;
}

/**
 * /api/v1/webhooks: an integrator's endpoints, called back with the job lifecycle events
 * (docs/webhooks.md); every delivery and attempt is listed, and any delivery can be sent again.
 */
export function registerWebhookRoutes(app: FastifyInstance, { peers }: GatewayContext): void {
  app.post<{ Body: CreateEndpointBody }>(
    '/api/v1/webhooks/endpoints',
    {
      schema: {
        operationId: 'createWebhookEndpoint',
        tags: ['webhooks'],
        summary: 'Register a webhook endpoint; its signing secret is in this answer only',
        description:
          'The URL must be https and resolve to public addresses only (422 WEBHOOK_URL_NOT_ALLOWED otherwise, unless the operator allowlisted the host). At most 10 endpoints per user (409 WEBHOOK_ENDPOINT_LIMIT).',
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['url'],
          properties: {
            url: { type: 'string', minLength: 1, maxLength: MAX_WEBHOOK_URL_LENGTH, description: 'https://…, where the events are POSTed' },
            eventTypes: {
              type: 'array',
              items: { type: 'string', enum: WEBHOOK_EVENT_TYPES },
              maxItems: WEBHOOK_EVENT_TYPES.length,
              uniqueItems: true,
              description: 'the event types to receive; absent or empty: all',
            },
            description: { type: 'string', maxLength: MAX_WEBHOOK_DESCRIPTION_LENGTH },
          },
        },
        response: responses({
          201: object({
            endpoint: endpointSchema,
            secret: { type: 'string', description: 'whsec_<base64 key>: verify webhook-signature with it; shown only now' },
          }),
        }),
      },
    },
    async (request, reply) => {
      const { endpoint, secret } = await peers.webhooks.createEndpoint({
        userId: callerOf(request).userId,
        url: request.body.url,
        eventTypes: request.body.eventTypes ?? [],
        description: request.body.description ?? '',
      });
      reply.code(201);
      return { endpoint: toEndpointDto(endpoint!), secret };
    },
  );

  app.get(
    '/api/v1/webhooks/endpoints',
    {
      schema: {
        operationId: 'listWebhookEndpoints',
        tags: ['webhooks'],
        summary: "The caller's webhook endpoints, newest first (never their secrets)",
        response: responses({ 200: object({ items: { type: 'array', items: endpointSchema } }) }),
      },
    },
    async (request) => {
      const { endpoints } = await peers.webhooks.listEndpoints({ userId: callerOf(request).userId });
      return { items: endpoints.map(toEndpointDto) };
    },
  );

  app.delete<{ Params: { endpointId: string } }>(
    '/api/v1/webhooks/endpoints/:endpointId',
    {
      schema: {
        operationId: 'deleteWebhookEndpoint',
        tags: ['webhooks'],
        summary: 'Delete a webhook endpoint of the caller, with its deliveries: nothing more is sent to it',
        params: idParam('endpointId'),
        response: responses({ 200: object({ deleted: { type: 'boolean', const: true } }) }),
      },
    },
    async (request) => {
      await peers.webhooks.deleteEndpoint({ userId: callerOf(request).userId, endpointId: request.params.endpointId });
      return { deleted: true };
    },
  );

  app.get<{ Params: { endpointId: string }; Querystring: { cursor?: string; limit: number } }>(
    '/api/v1/webhooks/endpoints/:endpointId/deliveries',
    {
      schema: {
        operationId: 'listWebhookDeliveries',
        tags: ['webhooks'],
        summary: "An endpoint's deliveries, newest first, each with every attempt",
        params: idParam('endpointId'),
        querystring: pageQuery(),
        response: responses({ 200: object({ items: { type: 'array', items: deliverySchema }, nextCursor: nullableString }) }),
      },
    },
    async (request) => {
      const result = await peers.webhooks.listDeliveries({
        userId: callerOf(request).userId,
        endpointId: request.params.endpointId,
        pageSize: request.query.limit,
        pageToken: request.query.cursor ?? '',
      });
      return { items: result.deliveries.map(toDeliveryDto), nextCursor: result.nextPageToken || null };
    },
  );

  app.post<{ Params: { deliveryId: string } }>(
    '/api/v1/webhooks/deliveries/:deliveryId/replay',
    {
      schema: {
        operationId: 'replayWebhookDelivery',
        tags: ['webhooks'],
        summary: 'Send a delivery again, now, with the same webhook-id and a fresh retry schedule',
        params: idParam('deliveryId'),
        response: responses({ 202: object({ delivery: deliverySchema }) }),
      },
    },
    async (request, reply) => {
      const { delivery } = await peers.webhooks.replayDelivery({ userId: callerOf(request).userId, deliveryId: request.params.deliveryId });
      reply.code(202);
      return { delivery: toDeliveryDto(delivery!) };
    },
  );
}

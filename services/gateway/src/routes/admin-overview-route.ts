import type { FastifyInstance } from 'fastify';
import type { GatewayContext } from '../gateway-context.js';
import { responses } from '../http/schemas.js';
import { toOverviewDto } from './dto-mapper.js';
import { jobQueues } from '../http/api-enums.js';

const dateTime = { type: 'string', format: 'date-time' } as const;
const integer = { type: 'integer' } as const;
const object = (properties: Record<string, object>) => ({
  type: 'object',
  additionalProperties: false,
  required: Object.keys(properties),
  properties,
});
const percentiles = object({ count: integer, p50Ms: integer, p90Ms: integer, p99Ms: integer });

const example = {
  generatedAt: '2026-12-01T12:00:30.000Z',
  windowStart: '2026-12-01T11:01:00.000Z',
  bucketMinutes: 1,
  throughput: [{ bucketStart: '2026-12-01T11:58:00.000Z', jobType: 'image.stylize', succeeded: 41, failed: 2, cancelled: 1 }],
  latencies: [
    {
      jobType: 'image.stylize',
      queueWait: { count: 44, p50Ms: 180, p90Ms: 950, p99Ms: 4200 },
      runTime: { count: 45, p50Ms: 6100, p90Ms: 9800, p99Ms: 15500 },
    },
  ],
  queues: [
    { queue: 'interactive', ready: 3, delayed: 0, running: 8, oldestReadyAgeMs: 1200 },
    { queue: 'background', ready: 0, delayed: 2, running: 1, oldestReadyAgeMs: 0 },
  ],
  outbox: { pending: 1, processing: 0, dead: 0, oldestPendingAgeMs: 40 },
  expiredLeases: 0,
  workers: [
    {
      workerId: 'worker-7c9f4d-1',
      lastLeaseRenewalAt: '2026-12-01T12:00:21.000Z',
      jobs: [
        {
          jobId: '019ad2c4-5b1e-7000-8000-00000000a1b2',
          jobType: 'image.stylize',
          attempt: 1,
          startedAt: '2026-12-01T12:00:19.000Z',
          leaseExpiresAt: '2026-12-01T12:01:21.000Z',
        },
      ],
    },
  ],
  queueHistory: [
    { bucketStart: '2026-12-01T11:59:00.000Z', queuedAtEnd: 2, queueWait: { count: 40, p50Ms: 170, p90Ms: 900, p99Ms: 3900 } },
    { bucketStart: '2026-12-01T12:00:00.000Z', queuedAtEnd: 3, queueWait: { count: 4, p50Ms: 210, p90Ms: 1100, p99Ms: 1100 } },
  ],
  quotaHits: { dayStart: '2026-12-01T00:00:00.000Z', monthStart: '2026-12-01T00:00:00.000Z', daily: 37, monthly: 4, inFlight: 112 },
};

const overviewSchema = {
  ...object({
    generatedAt: { ...dateTime, description: "the database's clock when read; every figure is as of this instant" },
    windowStart: { ...dateTime, description: 'start of the first bucket: throughput and latencies cover [windowStart, generatedAt]' },
    bucketMinutes: { ...integer, description: '1 for windows up to 3 h, 5 up to 12 h, 15 beyond' },
    throughput: {
      type: 'array',
      description: 'jobs ended per bucket and type, by outcome; only non-empty (bucket, type) pairs, by bucketStart then jobType',
      items: object({ bucketStart: dateTime, jobType: { type: 'string' }, succeeded: integer, failed: integer, cancelled: integer }),
    },
    latencies: {
      type: 'array',
      description:
        'per job type, nearest-rank percentiles: queueWait = created or requeued → claimed (claims in the window, backoff included); runTime = claimed → end of the attempt (attempts that ended in the window)',
      items: object({ jobType: { type: 'string' }, queueWait: percentiles, runTime: percentiles }),
    },
    queues: {
      type: 'array',
      description: 'now, per queue; oldestReadyAgeMs is how long the oldest due job has waited (0 when none)',
      items: object({
        queue: { type: 'string', enum: jobQueues.words },
        ready: integer,
        delayed: integer,
        running: integer,
        oldestReadyAgeMs: integer,
      }),
    },
    outbox: object({ pending: integer, processing: integer, dead: integer, oldestPendingAgeMs: integer }),
    expiredLeases: { ...integer, description: 'running jobs whose lease expired, awaiting the reaper' },
    workers: {
      type: 'array',
      description: 'workers holding an unexpired lease, with their in-flight jobs; a worker running no job holds none and is not listed',
      items: object({
        workerId: { type: 'string' },
        lastLeaseRenewalAt: dateTime,
        jobs: {
          type: 'array',
          items: object({
            jobId: { type: 'string' },
            jobType: { type: 'string' },
            attempt: integer,
            startedAt: dateTime,
            leaseExpiresAt: dateTime,
          }),
        },
      }),
    },
    queueHistory: {
      type: 'array',
      description:
        'every bucket of the window, by bucketStart: queuedAtEnd = jobs queued (ready or backing off) when the bucket ends, now for the last; queueWait = the waits that claims within the bucket ended, all job types',
      items: object({ bucketStart: dateTime, queuedAtEnd: integer, queueWait: percentiles }),
    },
    quotaHits: {
      ...object({
        dayStart: { ...dateTime, description: 'the current UTC day, which daily and inFlight cover' },
        monthStart: { ...dateTime, description: 'the current UTC month, which monthly covers' },
        daily: { ...integer, description: 'users refused today because their daily allowance was used up (42900, allowance daily)' },
        monthly: { ...integer, description: 'users refused this month because their monthly allowance was used up (42902)' },
        inFlight: {
          ...integer,
          description: 'users refused today because they had the most generations queued or running at once (42900, allowance in_flight)',
        },
      }),
      description: 'users the generation quota refused at least once, per allowance, over its own period (not the window)',
    },
  }),
  examples: [example],
};

/**
 * `GET /admin-api/overview?windowMinutes=60…1440` (role admin, checked by the admin hook): the
 * console's overview, read by jobs from its database (GetOverview).
 */
export function registerAdminOverviewRoute(app: FastifyInstance, { peers }: GatewayContext): void {
  app.get<{ Querystring: { windowMinutes: number } }>(
    '/admin-api/overview',
    {
      schema: {
        operationId: 'adminGetOverview',
        tags: ['operators'],
        summary:
          'Throughput, queue wait and run time percentiles, queue depth, outbox backlog and live workers over the last 1–24 h; users the quota refused today and this month',
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            windowMinutes: {
              type: 'integer',
              minimum: 60,
              maximum: 1440,
              default: 60,
              description: 'how far back to look, 60–1440 minutes',
            },
          },
        },
        response: responses({ 200: overviewSchema }),
      },
    },
    async (request) => toOverviewDto(await peers.jobsAdmin.getOverview({ windowMinutes: request.query.windowMinutes })),
  );
}

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { jobsAdminV1, jobsV1 } from '@atelier/contracts';
import { InvalidArgumentError } from '@atelier/errors';
import type { FastifyInstance } from 'fastify';
import type { GatewayPeers } from '../gateway-context.js';
import { gatewayOverFakePeers } from '../test-support/gateway-over-fake-peers.js';

// GET /admin-api/overview over a fake jobs admin peer: the window as it reaches GetOverview, the
// JSON the response maps to, and the refusals (role, window) before any call.
const at = (iso: string) => new Date(iso);
const overview = jobsAdminV1.GetOverviewResponse.fromPartial({
  generatedAt: at('2026-12-01T12:00:30.000Z'),
  windowStart: at('2026-12-01T11:01:00.000Z'),
  bucketMinutes: 1,
  throughput: [{ bucketStart: at('2026-12-01T11:58:00.000Z'), jobType: 'image.stylize', succeeded: 41, failed: 2, cancelled: 1 }],
  latencies: [
    {
      jobType: 'image.stylize',
      queueWait: { count: 44, p50Ms: 180, p90Ms: 950, p99Ms: 4200 },
      runTime: { count: 45, p50Ms: 6100, p90Ms: 9800, p99Ms: 15500 },
    },
    // A type with ended attempts and no claims in the window: the wait is all zeros.
    { jobType: 'system.canary', runTime: { count: 1, p50Ms: 5, p90Ms: 5, p99Ms: 5 } },
  ],
  queues: [
    { queue: jobsV1.JobQueue.INTERACTIVE, ready: 3, delayed: 0, running: 8, oldestReadyAgeMs: 1200 },
    { queue: jobsV1.JobQueue.BACKGROUND, ready: 0, delayed: 2, running: 1, oldestReadyAgeMs: 0 },
  ],
  outbox: { pending: 1, processing: 2, dead: 3, oldestPendingAgeMs: 40 },
  expiredLeases: 1,
  workers: [
    {
      workerId: 'worker-1',
      lastLeaseRenewalAt: at('2026-12-01T12:00:21.000Z'),
      jobs: [
        {
          jobId: '019ad2c4-5b1e-7000-8000-00000000a1b2',
          jobType: 'image.stylize',
          attempt: 2,
          startedAt: at('2026-12-01T12:00:19.000Z'),
          leaseExpiresAt: at('2026-12-01T12:01:21.000Z'),
        },
      ],
    },
  ],
  queueHistory: [
    { bucketStart: at('2026-12-01T11:59:00.000Z'), queuedAtEnd: 2, queueWait: { count: 40, p50Ms: 170, p90Ms: 900, p99Ms: 3900 } },
    // A bucket without claims: its waits are all zeros.
    { bucketStart: at('2026-12-01T12:00:00.000Z'), queuedAtEnd: 3 },
  ],
  quotaHits: {
    dayStart: at('2026-12-01T00:00:00.000Z'),
    monthStart: at('2026-12-01T00:00:00.000Z'),
    dailyUsers: 37,
    monthlyUsers: 4,
    inFlightUsers: 112,
  },
});
const requested: number[] = [];
const peers = {
  jobsAdmin: {
    getOverview: async ({ windowMinutes }: jobsAdminV1.GetOverviewRequest) => {
      requested.push(windowMinutes);
      if (windowMinutes === 1000) throw new InvalidArgumentError('window_minutes', 'refused by jobs');
      return overview;
    },
  },
} as unknown as GatewayPeers;

let app: FastifyInstance;
let admin: string;
let user: string;

beforeAll(async () => {
  const gateway = await gatewayOverFakePeers(peers);
  app = gateway.app;
  [admin, user] = await Promise.all([gateway.token('ops-1', ['admin']), gateway.token('alice')]);
});

afterAll(async () => {
  await app?.close();
});

beforeEach(() => {
  requested.length = 0;
});

const get = (query: string, token = admin) =>
  app.inject({ method: 'GET', url: `/admin-api/overview${query}`, headers: { authorization: `Bearer ${token}` } });

describe('admin overview route - GET /admin-api/overview', () => {
  it('asks jobs for the window (60 minutes by default) and answers the overview as JSON', async () => {
    const response = await get('?windowMinutes=720');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
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
        {
          jobType: 'system.canary',
          queueWait: { count: 0, p50Ms: 0, p90Ms: 0, p99Ms: 0 },
          runTime: { count: 1, p50Ms: 5, p90Ms: 5, p99Ms: 5 },
        },
      ],
      queues: [
        { queue: 'interactive', ready: 3, delayed: 0, running: 8, oldestReadyAgeMs: 1200 },
        { queue: 'background', ready: 0, delayed: 2, running: 1, oldestReadyAgeMs: 0 },
      ],
      outbox: { pending: 1, processing: 2, dead: 3, oldestPendingAgeMs: 40 },
      expiredLeases: 1,
      workers: [
        {
          workerId: 'worker-1',
          lastLeaseRenewalAt: '2026-12-01T12:00:21.000Z',
          jobs: [
            {
              jobId: '019ad2c4-5b1e-7000-8000-00000000a1b2',
              jobType: 'image.stylize',
              attempt: 2,
              startedAt: '2026-12-01T12:00:19.000Z',
              leaseExpiresAt: '2026-12-01T12:01:21.000Z',
            },
          ],
        },
      ],
      queueHistory: [
        { bucketStart: '2026-12-01T11:59:00.000Z', queuedAtEnd: 2, queueWait: { count: 40, p50Ms: 170, p90Ms: 900, p99Ms: 3900 } },
        { bucketStart: '2026-12-01T12:00:00.000Z', queuedAtEnd: 3, queueWait: { count: 0, p50Ms: 0, p90Ms: 0, p99Ms: 0 } },
      ],
      quotaHits: { dayStart: '2026-12-01T00:00:00.000Z', monthStart: '2026-12-01T00:00:00.000Z', daily: 37, monthly: 4, inFlight: 112 },
    });
    expect((await get('')).statusCode).toBe(200);
    expect(requested).toEqual([720, 60]);
  });

  it('refuses a window outside 60–1440 minutes with 400 naming the field, without asking jobs', async () => {
    for (const query of ['?windowMinutes=59', '?windowMinutes=1441', '?windowMinutes=abc', '?windowMinutes=90.5', '?window=60']) {
      const response = await get(query);
      expect(response.statusCode, query).toBe(400);
      expect(response.json().error.name).toBe('BAD_REQUEST');
      expect(response.json().error.message, query).toMatch(/querystring/);
    }
    expect((await get('?windowMinutes=59')).json().error.message).toBe('querystring.windowMinutes must be >= 60');
    expect(requested).toEqual([]);
  });

  it("answers jobs' own INVALID_ARGUMENT as 400", async () => {
    const response = await get('?windowMinutes=1000');
    expect(response.statusCode).toBe(400);
    expect(response.json().error.message).toContain('window_minutes');
  });

  it('is for admins only', async () => {
    expect((await get('', user)).statusCode).toBe(403);
    expect((await app.inject({ method: 'GET', url: '/admin-api/overview' })).statusCode).toBe(401);
    expect(requested).toEqual([]);
  });

  it('is in the OpenAPI document with an example response', async () => {
    type Operation = { responses: Record<string, { content: Record<string, { example?: { bucketMinutes: number } }> }> };
    const document = app.swagger() as { paths: Record<string, { get?: Operation }> };
    const operation = document.paths['/admin-api/overview']?.get;
    expect(operation).toBeDefined();
    expect(operation!.responses['200']!.content['application/json']!.example?.bucketMinutes).toBe(1);
  });
});

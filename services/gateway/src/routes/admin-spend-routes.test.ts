import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { jobsUsageV1 } from '@atelier/contracts';
import type { FastifyInstance } from 'fastify';
import type { GatewayPeers } from '../gateway-context.js';
import { gatewayOverFakePeers } from '../test-support/gateway-over-fake-peers.js';
import { spendWindowStart } from './admin-spend-routes.js';

// The spend view's routes over a fake ledger peer: the window that reaches jobs, the JSON the
// answers map to, and the refusals before any call.
const { SpendGrouping, ProviderCallKind, ProviderCallOutcome } = jobsUsageV1;
const usd = (key: string, costMicros: number, extra: Partial<jobsUsageV1.SpendRow> = {}) =>
  jobsUsageV1.SpendRow.fromPartial({ key, currency: 'USD', costMicros, billablePredictions: 2, predictTimeMs: 3000, images: 2, ...extra });
const asked: { method: string; request: unknown }[] = [];
const peers = {
  usage: {
    getSpend: async (request: jobsUsageV1.GetSpendRequest) => {
      asked.push({ method: 'getSpend', request });
      const rows = {
        [SpendGrouping.DAY]: [usd('2026-12-02', 4600), usd('2026-12-03', 2300)],
        [SpendGrouping.PROVIDER]: [usd('sim', 6900, { providerCode: 'sim' })],
        [SpendGrouping.MODEL]: [
          usd('sim/sim-stylize@1.0', 6900, { providerCode: 'sim', providerModel: 'sim-stylize', modelVersion: '1.0' }),
        ],
      }[request.groupBy as 1 | 2 | 3];
      return { rows, totals: [usd('', 6900)] };
    },
    listTopSpenders: async (request: jobsUsageV1.ListTopSpendersRequest) => {
      asked.push({ method: 'listTopSpenders', request });
      return {
        spenders: [
          { userId: 'user-1', currency: 'USD', costMicros: 4600, jobs: 2 },
          { currency: 'USD', costMicros: 2300, jobs: 1 },
        ],
      };
    },
    listJobProviderCalls: async (request: jobsUsageV1.ListJobProviderCallsRequest) => {
      asked.push({ method: 'listJobProviderCalls', request });
      const call = {
        jobId: request.jobId,
        attempt: 1,
        requestKey: 'k',
        vendorId: 'p-1',
        providerCode: 'sim',
        providerModel: 'sim-stylize',
        modelVersion: '1.0',
        credentialMode: 'platform_key',
        credentialId: 'platform:0123456789ab',
        latencyMs: 12,
        calledAt: new Date('2026-12-03T10:00:00.000Z'),
        recordedAt: new Date('2026-12-03T10:00:00.100Z'),
      };
      return jobsUsageV1.ListJobProviderCallsResponse.fromPartial({
        calls: [
          { ...call, id: 7, callKind: ProviderCallKind.SUBMIT, outcome: ProviderCallOutcome.OK, httpStatus: 201 },
          {
            ...call,
            id: 8,
            callKind: ProviderCallKind.POLL,
            outcome: ProviderCallOutcome.OK,
            httpStatus: 200,
            predictTimeMs: 1500,
            images: 1,
            billable: true,
            costMicros: 3450,
            currency: 'USD',
          },
        ],
        cost: [{ currency: 'USD', costMicros: 3450 }],
        billablePredictions: 1,
      });
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
  asked.length = 0;
});

const get = (url: string, token = admin) => app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
const JOB = '019ad2c4-5b1e-7000-8000-00000000a1b2';

describe('spend routes - GET /admin-api/spend', () => {
  it('starts the window at UTC midnight days - 1 days back', () => {
    expect(spendWindowStart(new Date('2026-12-03T21:40:00Z'), 1).toISOString()).toBe('2026-12-03T00:00:00.000Z');
    expect(spendWindowStart(new Date('2026-12-03T21:40:00Z'), 7).toISOString()).toBe('2026-11-27T00:00:00.000Z');
    expect(spendWindowStart(new Date('2026-03-01T00:00:00Z'), 2).toISOString()).toBe('2026-02-28T00:00:00.000Z');
  });

  it('asks the ledger per day, provider and model over one window (7 days by default) and the top 10 users', async () => {
    const before = Date.now();
    const response = await get('/admin-api/spend');
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(new Date(body.from).toISOString()).toBe(spendWindowStart(new Date(body.to), 7).toISOString());
    expect(new Date(body.to).getTime()).toBeGreaterThanOrEqual(before);
    const windows = asked.map(({ request }) => request as { from: Date; to: Date });
    expect(new Set(windows.map((w) => `${w.from.toISOString()}/${w.to.toISOString()}`))).toEqual(new Set([`${body.from}/${body.to}`]));
    expect(
      asked.map(({ method, request }) => [
        method,
        (request as { groupBy?: number; limit?: number }).groupBy ?? (request as { limit: number }).limit,
      ]),
    ).toEqual([
      ['getSpend', SpendGrouping.DAY],
      ['getSpend', SpendGrouping.PROVIDER],
      ['getSpend', SpendGrouping.MODEL],
      ['listTopSpenders', 10],
    ]);
    const figures = { billablePredictions: 2, predictTimeMs: 3000, images: 2, currency: 'USD' };
    expect(body).toMatchObject({
      totals: [{ ...figures, costMicros: 6900 }],
      days: [
        { ...figures, day: '2026-12-02', costMicros: 4600 },
        { ...figures, day: '2026-12-03', costMicros: 2300 },
      ],
      providers: [{ ...figures, providerCode: 'sim', costMicros: 6900 }],
      models: [{ ...figures, providerCode: 'sim', providerModel: 'sim-stylize', modelVersion: '1.0', modelId: null, costMicros: 6900 }],
      topUsers: [
        { userId: 'user-1', currency: 'USD', costMicros: 4600, jobs: 2 },
        { userId: null, currency: 'USD', costMicros: 2300, jobs: 1 },
      ],
    });
  });

  it('refuses a window outside 1–92 days with 400 naming the field, without asking jobs', async () => {
    for (const query of ['?days=0', '?days=93', '?days=abc', '?days=1.5', '?window=3']) {
      const response = await get(`/admin-api/spend${query}`);
      expect(response.statusCode, query).toBe(400);
      expect(response.json().error.message, query).toMatch(/querystring/);
    }
    expect(asked).toEqual([]);
  });

  it('is for admins only', async () => {
    expect((await get('/admin-api/spend', user)).statusCode).toBe(403);
    expect((await get(`/admin-api/jobs/${JOB}/provider-calls`, user)).statusCode).toBe(403);
    expect((await app.inject({ method: 'GET', url: '/admin-api/spend' })).statusCode).toBe(401);
    expect(asked).toEqual([]);
  });
});

describe('spend routes - GET /admin-api/jobs/{jobId}/provider-calls', () => {
  it("answers the job's calls with their words, units and cost", async () => {
    const response = await get(`/admin-api/jobs/${JOB}/provider-calls`);
    expect(response.statusCode).toBe(200);
    expect(asked).toEqual([{ method: 'listJobProviderCalls', request: { jobId: JOB } }]);
    const body = response.json();
    expect(body.cost).toEqual([{ currency: 'USD', costMicros: 3450 }]);
    expect(body.billablePredictions).toBe(1);
    expect(body.calls).toEqual([
      expect.objectContaining({
        id: '7',
        kind: 'submit',
        outcome: 'ok',
        billable: false,
        costMicros: null,
        predictTimeMs: null,
        httpStatus: 201,
      }),
      expect.objectContaining({
        id: '8',
        kind: 'poll',
        outcome: 'ok',
        billable: true,
        costMicros: 3450,
        currency: 'USD',
        predictTimeMs: 1500,
        images: 1,
        credentialId: 'platform:0123456789ab',
        calledAt: '2026-12-03T10:00:00.000Z',
      }),
    ]);
  });

  it('refuses a job id that is not a UUID without asking jobs', async () => {
    const response = await get('/admin-api/jobs/not-a-job/provider-calls');
    expect(response.statusCode).toBe(400);
    expect(response.json().error.message).toMatch(/jobId/);
    expect(asked).toEqual([]);
  });
});

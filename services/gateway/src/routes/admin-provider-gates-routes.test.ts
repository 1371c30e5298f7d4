import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { jobsDispatchGatesV1 } from '@atelier/contracts';
import { NotFoundError } from '@atelier/errors';
import type { FastifyInstance } from 'fastify';
import type { GatewayPeers } from '../gateway-context.js';
import { gatewayOverFakePeers } from '../test-support/gateway-over-fake-peers.js';

// The operators' budget and limit routes over a fake of jobs' ProviderDispatchService that records
// what it was asked: the translation both ways, the refusals, the admin role.
const at = new Date('2026-12-03T08:00:00Z');
const asked: { method: string; request: unknown }[] = [];
const record = (method: string, request: unknown) => void asked.push({ method, request });

const budget: jobsDispatchGatesV1.SpendBudget = {
  providerCode: 'sim',
  providerModel: '',
  dailyLimitMicros: 50_000_000,
  currency: 'USD',
  spentTodayMicros: 41_250_000,
  usedRatio: 0.825,
  updatedBy: 'ops-carol',
  updatedAt: at,
};
const limit: jobsDispatchGatesV1.ProviderLimit = {
  providerCode: 'sim',
  providerModel: '',
  maxConcurrent: 3,
  maxRequestsPerSecond: undefined,
  burst: undefined,
  running: 2,
  pausedUntil: new Date('2026-12-03T08:00:05Z'),
  updatedBy: 'ops-carol',
  updatedAt: at,
  waiting: 4,
  oldestWaitingMs: 2_400,
};

const peers = {
  jobsGates: {
    listSpendBudgets: async () => ({ budgets: [budget] }),
    setSpendBudget: async (request: jobsDispatchGatesV1.SetSpendBudgetRequest) => {
      record('setSpendBudget', request);
      return { budget: { ...budget, dailyLimitMicros: request.dailyLimitMicros, updatedBy: request.operatorId } };
    },
    deleteSpendBudget: async (request: jobsDispatchGatesV1.DeleteSpendBudgetRequest) => {
      record('deleteSpendBudget', request);
      if (request.providerCode !== 'sim') throw new NotFoundError('spend budget');
      return {};
    },
    listProviderLimits: async () => ({ limits: [limit] }),
    setProviderLimit: async (request: jobsDispatchGatesV1.SetProviderLimitRequest) => {
      record('setProviderLimit', request);
      return { limit: { ...limit, maxConcurrent: request.maxConcurrent, maxRequestsPerSecond: request.maxRequestsPerSecond } };
    },
    deleteProviderLimit: async (request: jobsDispatchGatesV1.DeleteProviderLimitRequest) => {
      record('deleteProviderLimit', request);
      return {};
    },
  },
} as unknown as GatewayPeers;

let app: FastifyInstance;
let admin: string;
let user: string;

beforeAll(async () => {
  const gateway = await gatewayOverFakePeers(peers);
  app = gateway.app;
  [admin, user] = await Promise.all([gateway.token('ops-carol', ['admin']), gateway.token('alice')]);
});

afterAll(async () => {
  await app?.close();
});

const call = (method: 'GET' | 'PUT' | 'DELETE', url: string, payload?: object, token = admin) =>
  app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });

describe('gateway - provider budgets and limits (operators)', () => {
  it('lists budgets and limits with their state now', async () => {
    const budgets = await call('GET', '/admin-api/provider-budgets');
    expect(budgets.statusCode).toBe(200);
    expect(budgets.json()).toEqual({ items: [{ ...budget, updatedAt: at.toISOString() }] });
    const limits = await call('GET', '/admin-api/provider-limits');
    expect(limits.json()).toEqual({
      items: [
        {
          ...limit,
          maxRequestsPerSecond: null,
          burst: null,
          pausedUntil: '2026-12-03T08:00:05.000Z',
          updatedAt: at.toISOString(),
        },
      ],
    });
  });

  it('sets a budget and a limit as the calling operator, the model defaulting to the whole provider', async () => {
    asked.length = 0;
    const set = await call('PUT', '/admin-api/provider-budgets', { providerCode: 'sim', dailyLimitMicros: 75_000_000, currency: 'USD' });
    expect(set.statusCode).toBe(200);
    expect(set.json().budget).toMatchObject({ dailyLimitMicros: 75_000_000, updatedBy: 'ops-carol' });
    const capped = await call('PUT', '/admin-api/provider-limits', { providerCode: 'sim', maxConcurrent: 5, maxRequestsPerSecond: null });
    expect(capped.json().limit).toMatchObject({ maxConcurrent: 5, maxRequestsPerSecond: null });
    expect(asked).toEqual([
      {
        method: 'setSpendBudget',
        request: {
          providerCode: 'sim',
          providerModel: '',
          dailyLimitMicros: 75_000_000,
          currency: 'USD',
          operatorId: 'ops-carol',
          actor: { subject: 'ops-carol', role: 'admin', route: 'PUT /admin-api/provider-budgets' },
        },
      },
      {
        method: 'setProviderLimit',
        request: {
          providerCode: 'sim',
          providerModel: '',
          maxConcurrent: 5,
          maxRequestsPerSecond: undefined,
          burst: undefined,
          operatorId: 'ops-carol',
          actor: { subject: 'ops-carol', role: 'admin', route: 'PUT /admin-api/provider-limits' },
        },
      },
    ]);
  });

  it('removes with 204, 404 when there is none', async () => {
    expect((await call('DELETE', '/admin-api/provider-budgets?providerCode=sim')).statusCode).toBe(204);
    const missing = await call('DELETE', '/admin-api/provider-budgets?providerCode=other');
    expect([missing.statusCode, missing.json().error.code]).toEqual([404, 40400]);
    expect((await call('DELETE', '/admin-api/provider-limits?providerCode=sim&providerModel=sim-stylize')).statusCode).toBe(204);
    expect(asked.at(-1)).toEqual({
      method: 'deleteProviderLimit',
      request: {
        providerCode: 'sim',
        providerModel: 'sim-stylize',
        actor: { subject: 'ops-carol', role: 'admin', route: 'DELETE /admin-api/provider-limits' },
      },
    });
  });

  it('refuses bad input 400 before jobs is asked, and a user without the admin role 403', async () => {
    asked.length = 0;
    for (const body of [
      { providerCode: 'Sim!', dailyLimitMicros: 1, currency: 'USD' },
      { providerCode: 'sim', dailyLimitMicros: -1, currency: 'USD' },
      { providerCode: 'sim', dailyLimitMicros: 1, currency: 'dollars' },
      { providerCode: 'sim', dailyLimitMicros: 1, currency: 'USD', extra: true },
    ]) {
      expect((await call('PUT', '/admin-api/provider-budgets', body)).statusCode, JSON.stringify(body)).toBe(400);
    }
    expect((await call('PUT', '/admin-api/provider-limits', { providerCode: 'sim', maxConcurrent: 1e9 })).statusCode).toBe(400);
    expect((await call('DELETE', '/admin-api/provider-limits')).statusCode).toBe(400);
    expect(asked).toEqual([]);
    expect((await call('GET', '/admin-api/provider-budgets', undefined, user)).statusCode).toBe(403);
  });
});

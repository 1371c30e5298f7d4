import type { FastifyInstance } from 'fastify';
import type { jobsDispatchGatesV1 } from '@atelier/contracts';
import { MAX_PROVIDER_MODEL_LENGTH } from '@atelier/validation';
import { callerOf } from '../auth/authenticate.js';
import type { GatewayContext } from '../gateway-context.js';
import { responses } from '../http/schemas.js';
import { operatorActorOf } from '../auth/operator-actor.js';

// The providers' gates (docs/budgets-and-limits.md): daily spend budgets and the vendor's own
// limits, read and set by operators; the jobs service applies them at every claim.

const dateTime = { type: 'string', format: 'date-time' } as const;
const nullableDateTime = { type: ['string', 'null'], format: 'date-time' } as const;
const nullableInteger = { type: ['integer', 'null'] } as const;
const object = (properties: Record<string, object>, required: string[] = Object.keys(properties)) => ({
  type: 'object',
  additionalProperties: false,
  required,
  properties,
});
const providerCode = { type: 'string', pattern: '^[a-z][a-z0-9_-]{0,63}$', description: "the catalog's provider code", examples: ['sim'] };
const providerModel = {
  type: 'string',
  maxLength: MAX_PROVIDER_MODEL_LENGTH,
  default: '',
  description: 'one model of the provider; empty: every model of it',
};
const cap = (min: number, description: string) => ({ type: ['integer', 'null'], minimum: min, maximum: 100_000, description });

const budgetSchema = object({
  providerCode: { type: 'string' },
  providerModel: { type: 'string', description: 'empty: every model of the provider' },
  dailyLimitMicros: { type: 'integer', description: 'per UTC day, in millionths of currency' },
  currency: { type: 'string' },
  spentTodayMicros: { type: 'integer', description: "today's (UTC) spend on our own key (platform_key), in millionths of currency" },
  usedRatio: { type: 'number', description: 'spent / limit: 0.8 warns, 1 or more holds new jobs of the provider (model) back' },
  updatedBy: { type: 'string' },
  updatedAt: dateTime,
});

const limitSchema = object({
  providerCode: { type: 'string' },
  providerModel: { type: 'string', description: 'empty: the whole provider' },
  maxConcurrent: { ...nullableInteger, description: 'most jobs running at once (one open prediction each); null: no cap' },
  maxRequestsPerSecond: { ...nullableInteger, description: 'calls a second to the vendor, every worker together; null: no cap' },
  burst: { ...nullableInteger, description: 'calls that may go at once after a quiet spell' },
  running: { type: 'integer', description: 'jobs of the provider (model) running now' },
  pausedUntil: { ...nullableDateTime, description: "the vendor's Retry-After: nothing is sent to it before then" },
  waiting: { type: 'integer', description: 'due jobs of the provider (model) on our key waiting to start now' },
  oldestWaitingMs: { type: 'integer', description: 'how long the longest of them has waited since it became due; 0: none' },
  updatedBy: { type: 'string' },
  updatedAt: dateTime,
});

const budgetExample = {
  providerCode: 'sim',
  providerModel: '',
  dailyLimitMicros: 50_000_000,
  currency: 'USD',
  spentTodayMicros: 41_250_000,
  usedRatio: 0.825,
  updatedBy: 'admin-1',
  updatedAt: '2026-12-03T08:00:00.000Z',
};
const limitExample = {
  providerCode: 'sim',
  providerModel: '',
  maxConcurrent: 3,
  maxRequestsPerSecond: 10,
  burst: 20,
  running: 2,
  pausedUntil: null,
  waiting: 5,
  oldestWaitingMs: 2400,
  updatedBy: 'admin-1',
  updatedAt: '2026-12-03T08:00:00.000Z',
};

const toBudgetDto = (budget: jobsDispatchGatesV1.SpendBudget) => ({
  providerCode: budget.providerCode,
  providerModel: budget.providerModel,
  dailyLimitMicros: budget.dailyLimitMicros,
  currency: budget.currency,
  spentTodayMicros: budget.spentTodayMicros,
  usedRatio: budget.usedRatio,
  updatedBy: budget.updatedBy,
  updatedAt: budget.updatedAt!.toISOString(),
});

const toLimitDto = (limit: jobsDispatchGatesV1.ProviderLimit) => ({
  providerCode: limit.providerCode,
  providerModel: limit.providerModel,
  maxConcurrent: limit.maxConcurrent ?? null,
  maxRequestsPerSecond: limit.maxRequestsPerSecond ?? null,
  burst: limit.burst ?? null,
  running: limit.running,
  pausedUntil: limit.pausedUntil?.toISOString() ?? null,
  waiting: limit.waiting,
  oldestWaitingMs: limit.oldestWaitingMs,
  updatedBy: limit.updatedBy,
  updatedAt: limit.updatedAt!.toISOString(),
});

interface BudgetBody {
  providerCode: string;
  providerModel: string;
  dailyLimitMicros: number;
  currency: string;
}

interface LimitBody {
  providerCode: string;
  providerModel: string;
  maxConcurrent?: number | null;
  maxRequestsPerSecond?: number | null;
  burst?: number | null;
}

type Key = { providerCode: string; providerModel: string };
const keyQuery = object({ providerCode, providerModel }, ['providerCode']);

/** Operator routes (role admin, checked by the admin hook) of the providers' budgets and limits. */
export function registerAdminProviderGatesRoutes(app: FastifyInstance, { peers }: GatewayContext): void {
  app.get(
    '/admin-api/provider-budgets',
    {
      schema: {
        operationId: 'adminListProviderBudgets',
        tags: ['operators'],
        summary: "Every provider's daily spend budget with today's (UTC) spend",
        response: responses({
          200: { ...object({ items: { type: 'array', items: budgetSchema } }), examples: [{ items: [budgetExample] }] },
        }),
      },
    },
    async () => ({ items: (await peers.jobsGates.listSpendBudgets({})).budgets.map(toBudgetDto) }),
  );

  app.put<{ Body: BudgetBody }>(
    '/admin-api/provider-budgets',
    {
      schema: {
        operationId: 'adminSetProviderBudget',
        tags: ['operators'],
        summary: 'Set (create or replace) a daily spend budget; a raised limit lets held-back jobs start at once',
        body: object(
          {
            providerCode,
            providerModel,
            dailyLimitMicros: { type: 'integer', minimum: 0, maximum: 1e15, description: '0 holds every new job of it back' },
            currency: { type: 'string', pattern: '^[A-Z]{3}$', examples: ['USD'] },
          },
          ['providerCode', 'dailyLimitMicros', 'currency'],
        ),
        response: responses({ 200: { ...object({ budget: budgetSchema }), examples: [{ budget: budgetExample }] } }),
      },
    },
    async (request) => {
      const { budget } = await peers.jobsGates.setSpendBudget({
        ...request.body,
        operatorId: callerOf(request).userId,
        actor: operatorActorOf(request),
      });
      return { budget: toBudgetDto(budget!) };
    },
  );

  app.delete<{ Querystring: Key }>(
    '/admin-api/provider-budgets',
    {
      schema: {
        operationId: 'adminDeleteProviderBudget',
        tags: ['operators'],
        summary: 'Remove a budget (404 when there is none)',
        querystring: keyQuery,
        response: responses({ 204: { type: 'null', description: 'removed' } }),
      },
    },
    async (request, reply) => {
      await peers.jobsGates.deleteSpendBudget({ ...request.query, actor: operatorActorOf(request) });
      return reply.code(204).send();
    },
  );

  app.get(
    '/admin-api/provider-limits',
    {
      schema: {
        operationId: 'adminListProviderLimits',
        tags: ['operators'],
        summary: "The vendors' limits on our account, with each provider's running jobs and throttle now",
        response: responses({
          200: { ...object({ items: { type: 'array', items: limitSchema } }), examples: [{ items: [limitExample] }] },
        }),
      },
    },
    async () => ({ items: (await peers.jobsGates.listProviderLimits({})).limits.map(toLimitDto) }),
  );

  app.put<{ Body: LimitBody }>(
    '/admin-api/provider-limits',
    {
      schema: {
        operationId: 'adminSetProviderLimit',
        tags: ['operators'],
        summary: "Set (create or replace) a provider's (or model's) concurrency and request-rate caps",
        body: object(
          {
            providerCode,
            providerModel,
            maxConcurrent: cap(0, 'most jobs running at once; 0 holds every new job back; null or absent: no cap'),
            maxRequestsPerSecond: cap(1, 'the whole provider only (providerModel empty); null or absent: no cap'),
            burst: cap(1, 'with a rate: calls that may go at once (default: the rate)'),
          },
          ['providerCode'],
        ),
        response: responses({ 200: { ...object({ limit: limitSchema }), examples: [{ limit: limitExample }] } }),
      },
    },
    async (request) => {
      const body = request.body;
      const { limit } = await peers.jobsGates.setProviderLimit({
        actor: operatorActorOf(request),
        providerCode: body.providerCode,
        providerModel: body.providerModel,
        maxConcurrent: body.maxConcurrent ?? undefined,
        maxRequestsPerSecond: body.maxRequestsPerSecond ?? undefined,
        burst: body.burst ?? undefined,
        operatorId: callerOf(request).userId,
      });
      return { limit: toLimitDto(limit!) };
    },
  );

  app.delete<{ Querystring: Key }>(
    '/admin-api/provider-limits',
    {
      schema: {
        operationId: 'adminDeleteProviderLimit',
        tags: ['operators'],
        summary: 'Remove a limit (404 when there is none)',
        querystring: keyQuery,
        response: responses({ 204: { type: 'null', description: 'removed' } }),
      },
    },
    async (request, reply) => {
      await peers.jobsGates.deleteProviderLimit({ ...request.query, actor: operatorActorOf(request) });
      return reply.code(204).send();
    },
  );
}

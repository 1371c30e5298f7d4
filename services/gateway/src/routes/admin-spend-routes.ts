import type { FastifyInstance } from 'fastify';
import { jobsUsageV1 } from '@atelier/contracts';
import type { GatewayContext } from '../gateway-context.js';
import { providerCallKinds, providerCallOutcomes } from '../http/api-enums.js';
import { idParam, nullableString, object, responses } from '../http/schemas.js';

const integer = { type: 'integer' } as const;
const text = { type: 'string' } as const;
const dateTime = { type: 'string', format: 'date-time' } as const;
const nullableInteger = { type: ['integer', 'null'] } as const;
const money = {
  currency: { type: 'string', description: 'ISO 4217; empty for billable predictions that had no price in force' },
  costMicros: { type: 'integer', description: 'millionths of the currency' },
};
const spendRow = (key: Record<string, object>) =>
  object({ ...key, ...money, billablePredictions: integer, predictTimeMs: integer, images: integer });

const MAX_SPEND_DAYS = 92;
const TOP_USERS = 10;

interface SpendQuery {
  days: number;
}

/** UTC midnight `days - 1` days before `now`: a window of whole days ending now. */
export function spendWindowStart(now: Date, days: number): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - (days - 1)));
}

const spendFigures = (row: jobsUsageV1.SpendRow) => ({
  currency: row.currency,
  costMicros: row.costMicros,
  billablePredictions: row.billablePredictions,
  predictTimeMs: row.predictTimeMs,
  images: row.images,
});

const spendSchema = {
  ...object({
    from: { ...dateTime, description: 'UTC midnight, `days - 1` days before today' },
    to: { ...dateTime, description: 'now' },
    totals: { type: 'array', description: 'the whole window, per currency', items: spendRow({}) },
    days: {
      type: 'array',
      description: 'per UTC day with spend, oldest first',
      items: spendRow({ day: { type: 'string', format: 'date' } }),
    },
    providers: { type: 'array', items: spendRow({ providerCode: text }) },
    models: {
      type: 'array',
      items: spendRow({ providerCode: text, providerModel: text, modelVersion: text, modelId: nullableString }),
    },
    topUsers: {
      type: 'array',
      description: `the ${TOP_USERS} users who cost most in the window, most first; userId null for deleted accounts`,
      items: object({ userId: nullableString, ...money, jobs: integer }),
    },
  }),
  examples: [
    {
      from: '2026-11-27T00:00:00.000Z',
      to: '2026-12-03T21:40:00.000Z',
      totals: [{ currency: 'USD', costMicros: 41_400, billablePredictions: 12, predictTimeMs: 18_000, images: 12 }],
      days: [{ day: '2026-12-03', currency: 'USD', costMicros: 41_400, billablePredictions: 12, predictTimeMs: 18_000, images: 12 }],
      providers: [{ providerCode: 'sim', currency: 'USD', costMicros: 41_400, billablePredictions: 12, predictTimeMs: 18_000, images: 12 }],
      models: [
        {
          providerCode: 'sim',
          providerModel: 'sim-stylize',
          modelVersion: '1.0',
          modelId: '019ad2c4-5b1e-7000-8000-00000000c0de',
          currency: 'USD',
          costMicros: 41_400,
          billablePredictions: 12,
          predictTimeMs: 18_000,
          images: 12,
        },
      ],
      topUsers: [{ userId: 'user-42', currency: 'USD', costMicros: 10_350, jobs: 3 }],
    },
  ],
};

const providerCallSchema = object({
  id: text,
  attempt: integer,
  kind: { type: 'string', enum: providerCallKinds.words },
  vendorId: { ...text, description: "the vendor's prediction id; empty when the call got none" },
  providerCode: text,
  providerModel: text,
  modelVersion: text,
  credentialMode: { type: 'string', enum: ['platform_key', 'user_key'] },
  credentialId: { ...text, description: 'a non-secret id of the credential, never the key' },
  outcome: { type: 'string', enum: providerCallOutcomes.words },
  errorCode: nullableString,
  httpStatus: nullableInteger,
  latencyMs: integer,
  predictTimeMs: nullableInteger,
  images: nullableInteger,
  billable: { type: 'boolean', description: "the one call that carries the prediction's billed units" },
  costMicros: nullableInteger,
  currency: nullableString,
  calledAt: dateTime,
});

const exampleCall = {
  id: '7',
  attempt: 1,
  kind: 'submit',
  vendorId: 'pred_6f1c0a9e2b7d4c3a5e8f0b1d',
  providerCode: 'sim',
  providerModel: 'sim-patbond-v1',
  modelVersion: '1.0',
  credentialMode: 'platform_key',
  credentialId: 'platform:3f1c0a9e2b7d',
  outcome: 'ok',
  errorCode: null,
  // A status only where the vendor refused (the client sees no other).
  httpStatus: null,
  latencyMs: 84,
  predictTimeMs: null,
  images: null,
  billable: false,
  costMicros: null,
  currency: null,
  calledAt: '2026-12-03T10:00:00.000Z',
};
const callsExample = {
  calls: [
    exampleCall,
    {
      ...exampleCall,
      id: '9',
      kind: 'poll',
      latencyMs: 12,
      predictTimeMs: 1500,
      images: 1,
      billable: true,
      costMicros: 3450,
      currency: 'USD',
      calledAt: '2026-12-03T10:00:02.000Z',
    },
    { ...exampleCall, id: '10', kind: 'output_fetch', latencyMs: 40, calledAt: '2026-12-03T10:00:02.100Z' },
  ],
  cost: [{ currency: 'USD', costMicros: 3450 }],
  billablePredictions: 1,
};

/**
 * The operators' spend view (role admin, checked by the admin hook), read from the usage ledger
 * (jobs' ProviderUsageService): `GET /admin-api/spend` and a job's vendor calls.
 */
export function registerAdminSpendRoutes(app: FastifyInstance, { peers }: GatewayContext): void {
  app.get<{ Querystring: SpendQuery }>(
    '/admin-api/spend',
    {
      schema: {
        operationId: 'adminGetSpend',
        tags: ['operators'],
        summary: 'What the AI vendors were paid: per day, provider and model, and the users who cost most, over the last 1–92 days',
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            days: {
              type: 'integer',
              minimum: 1,
              maximum: MAX_SPEND_DAYS,
              default: 7,
              description: `whole UTC days ending today, 1–${MAX_SPEND_DAYS}`,
            },
          },
        },
        response: responses({ 200: spendSchema }),
      },
    },
    async (request) => {
      const to = new Date();
      const from = spendWindowStart(to, request.query.days);
      const spend = (groupBy: jobsUsageV1.SpendGrouping) => peers.usage.getSpend({ from, to, groupBy, credentialMode: '' });
      const [byDay, byProvider, byModel, top] = await Promise.all([
        spend(jobsUsageV1.SpendGrouping.DAY),
        spend(jobsUsageV1.SpendGrouping.PROVIDER),
        spend(jobsUsageV1.SpendGrouping.MODEL),
        peers.usage.listTopSpenders({ from, to, limit: TOP_USERS }),
      ]);
      return {
        from: from.toISOString(),
        to: to.toISOString(),
        totals: byDay.totals.map(spendFigures),
        days: byDay.rows.map((row) => ({ day: row.key, ...spendFigures(row) })),
        providers: byProvider.rows.map((row) => ({ providerCode: row.providerCode, ...spendFigures(row) })),
        models: byModel.rows.map((row) => ({
          providerCode: row.providerCode,
          providerModel: row.providerModel,
          modelVersion: row.modelVersion,
          modelId: row.modelId ?? null,
          ...spendFigures(row),
        })),
        topUsers: top.spenders.map((spender) => ({
          userId: spender.userId ?? null,
          currency: spender.currency,
          costMicros: spender.costMicros,
          jobs: spender.jobs,
        })),
      };
    },
  );

  app.get<{ Params: { jobId: string } }>(
    '/admin-api/jobs/:jobId/provider-calls',
    {
      schema: {
        operationId: 'adminListJobProviderCalls',
        tags: ['operators'],
        summary: "A job's calls to the AI vendor, in the order they were made, and what they cost",
        params: idParam('jobId'),
        response: responses({
          200: {
            ...object({
              calls: { type: 'array', description: 'at most 1000, oldest first', items: providerCallSchema },
              cost: { type: 'array', description: 'per currency: the sum of the billable calls', items: object(money) },
              billablePredictions: integer,
            }),
            examples: [callsExample],
          },
        }),
      },
    },
    async (request) => {
      const result = await peers.usage.listJobProviderCalls({ jobId: request.params.jobId });
      return {
        calls: result.calls.map((call) => ({
          id: String(call.id),
          attempt: call.attempt,
          kind: providerCallKinds.toApi(call.callKind),
          vendorId: call.vendorId,
          providerCode: call.providerCode,
          providerModel: call.providerModel,
          modelVersion: call.modelVersion,
          credentialMode: call.credentialMode,
          credentialId: call.credentialId,
          outcome: providerCallOutcomes.toApi(call.outcome),
          errorCode: call.errorCode ?? null,
          httpStatus: call.httpStatus ?? null,
          latencyMs: call.latencyMs,
          predictTimeMs: call.predictTimeMs ?? null,
          images: call.images ?? null,
          billable: call.billable,
          costMicros: call.costMicros ?? null,
          currency: call.currency ?? null,
          calledAt: call.calledAt!.toISOString(),
        })),
        cost: result.cost.map((cost) => ({ currency: cost.currency, costMicros: cost.costMicros })),
        billablePredictions: result.billablePredictions,
      };
    },
  );
}

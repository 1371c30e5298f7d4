import type { jobsDispatchGatesV1 } from '@atelier/contracts';
import { InvalidArgumentError, NotFoundError } from '@atelier/errors';
import type { Handler } from '@atelier/grpc';
import { auditedChange, requireOperatorActor } from '@atelier/operator-audit';
import { requireIntInRange } from '@atelier/validation';
import {
  deleteProviderLimit as deleteLimitRow,
  deleteSpendBudget as deleteBudgetRow,
  listProviderLimits as listLimitRows,
  listSpendBudgets as listBudgetRows,
  lockProviderLimitSetting,
  lockSpendBudgetSetting,
  upsertProviderLimit,
  upsertSpendBudget,
  type ProviderLimitRow,
  type SpendBudgetRow,
} from '../../db/provider-limits-sql.js';
import type { JobsContext } from '../../jobs-context.js';
import { requireCurrency, requireOperatorId, requireProviderCode, requireProviderModel } from './gate-fields.js';

type Service = typeof jobsDispatchGatesV1.ProviderDispatchServiceService;

/** The largest daily budget: a billion in the currency's units, far from bigint's end. */
const MAX_BUDGET_MICROS = 1e15;
const MAX_CAP = 100_000;

function toBudget(row: SpendBudgetRow): jobsDispatchGatesV1.SpendBudget {
  const limit = Number(row.daily_limit_micros);
  const spent = Number(row.spent_today_micros);
  return {
    providerCode: row.provider_code,
    providerModel: row.provider_model,
    dailyLimitMicros: limit,
    currency: row.currency,
    spentTodayMicros: spent,
    usedRatio: limit > 0 ? spent / limit : 1,
    updatedBy: row.updated_by,
    updatedAt: row.updated_at,
  };
}

function toLimit(row: ProviderLimitRow): jobsDispatchGatesV1.ProviderLimit {
  return {
    providerCode: row.provider_code,
    providerModel: row.provider_model,
    maxConcurrent: row.max_concurrent ?? undefined,
    maxRequestsPerSecond: row.max_requests_per_second ?? undefined,
    burst: row.burst ?? undefined,
    running: row.running,
    pausedUntil: row.paused_until ?? undefined,
    updatedBy: row.updated_by,
    updatedAt: row.updated_at,
    waiting: row.waiting,
    oldestWaitingMs: Number(row.oldest_waiting_ms),
  };
}

/** The audit target of a budget or limit: "budget:sim/*" for the whole provider, "budget:sim/sim-v1" for one model. */
function gateTarget(kind: 'budget' | 'limit', providerCode: string, providerModel: string): string {
  return `${kind}:${providerCode}/${providerModel || '*'}`;
}

export function listSpendBudgets(context: JobsContext): Handler<Service['listSpendBudgets']> {
  return async () => ({ budgets: (await listBudgetRows(context.pool)).map(toBudget) });
}

/** Takes effect at the next claim: a raised limit lets the provider's queued jobs start at once. */
export function setSpendBudget(context: JobsContext): Handler<Service['setSpendBudget']> {
  return async (request) => {
    const input = {
      providerCode: requireProviderCode(request.providerCode),
      providerModel: requireProviderModel(request.providerModel),
      dailyLimitMicros: requireIntInRange(request.dailyLimitMicros, 'daily_limit_micros', 0, MAX_BUDGET_MICROS),
      currency: requireCurrency(request.currency),
      updatedBy: requireOperatorId(request.operatorId),
    };
    const actor = requireOperatorActor(request.actor);
    const audited = { action: 'budget.set', actor, target: gateTarget('budget', input.providerCode, input.providerModel) };
    const row = await auditedChange(context.pool, 'jobs', audited, async (tx) => ({
      before: await lockSpendBudgetSetting(tx, input.providerCode, input.providerModel),
      result: await upsertSpendBudget(tx, input),
      after: { dailyLimitMicros: input.dailyLimitMicros, currency: input.currency },
    }));
    context.budgets.forget();
    context.logger.info(
      { provider: input.providerCode, model: input.providerModel, dailyLimitMicros: input.dailyLimitMicros },
      'a provider budget was set',
    );
    return { budget: toBudget(row) };
  };
}

export function deleteSpendBudget(context: JobsContext): Handler<Service['deleteSpendBudget']> {
  return async (request) => {
    const provider = requireProviderCode(request.providerCode);
    const model = requireProviderModel(request.providerModel);
    const actor = requireOperatorActor(request.actor);
    const audited = { action: 'budget.delete', actor, target: gateTarget('budget', provider, model) };
    await auditedChange(context.pool, 'jobs', audited, async (tx) => {
      const deleted = await deleteBudgetRow(tx, provider, model);
      if (!deleted) throw new NotFoundError('spend budget');
      return { result: undefined, before: deleted, after: null };
    });
    context.budgets.forget();
    return {};
  };
}

export function listProviderLimits(context: JobsContext): Handler<Service['listProviderLimits']> {
  return async () => ({ limits: (await listLimitRows(context.pool)).map(toLimit) });
}

export function setProviderLimit(context: JobsContext): Handler<Service['setProviderLimit']> {
  return async (request) => {
    const providerModel = requireProviderModel(request.providerModel);
    const optional = (value: number | undefined, field: string, min: number) =>
      value === undefined ? null : requireIntInRange(value, field, min, MAX_CAP);
    const maxRequestsPerSecond = optional(request.maxRequestsPerSecond, 'max_requests_per_second', 1);
    if (maxRequestsPerSecond !== null && providerModel !== '') {
      throw new InvalidArgumentError('max_requests_per_second', 'a request rate caps the whole provider: set it with provider_model empty');
    }
    const burst = optional(request.burst, 'burst', 1);
    if (burst !== null && maxRequestsPerSecond === null) throw new InvalidArgumentError('burst', 'needs max_requests_per_second');
    const input = {
      providerCode: requireProviderCode(request.providerCode),
      providerModel,
      maxConcurrent: optional(request.maxConcurrent, 'max_concurrent', 0),
      maxRequestsPerSecond,
      burst,
      updatedBy: requireOperatorId(request.operatorId),
    };
    const actor = requireOperatorActor(request.actor);
    const audited = { action: 'limit.set', actor, target: gateTarget('limit', input.providerCode, providerModel) };
    const row = await auditedChange(context.pool, 'jobs', audited, async (tx) => ({
      before: await lockProviderLimitSetting(tx, input.providerCode, providerModel),
      result: await upsertProviderLimit(tx, input),
      after: { maxConcurrent: input.maxConcurrent, maxRequestsPerSecond, burst },
    }));
    context.logger.info(
      { provider: input.providerCode, model: providerModel, maxConcurrent: input.maxConcurrent, maxRequestsPerSecond, burst },
      'a provider limit was set',
    );
    return { limit: toLimit(row) };
  };
}

export function deleteProviderLimit(context: JobsContext): Handler<Service['deleteProviderLimit']> {
  return async (request) => {
    const provider = requireProviderCode(request.providerCode);
    const model = requireProviderModel(request.providerModel);
    const actor = requireOperatorActor(request.actor);
    const audited = { action: 'limit.delete', actor, target: gateTarget('limit', provider, model) };
    await auditedChange(context.pool, 'jobs', audited, async (tx) => {
      const deleted = await deleteLimitRow(tx, provider, model);
      if (!deleted) throw new NotFoundError('provider limit');
      return { result: undefined, before: deleted, after: null };
    });
    return {};
  };
}

import type { jobsUsageV1 } from '@atelier/contracts';
import { InvalidArgumentError } from '@atelier/errors';
import type { Handler } from '@atelier/grpc';
import { recordProviderCalls as insertProviderCalls, selectJobModels } from '../../db/provider-calls-sql.js';
import { callCost, hasUnits } from '../../domain/call-cost.js';
import { MAX_CALLS_PER_RECORD, validateProviderCall } from '../../domain/provider-call-input.js';
import type { JobsContext } from '../../jobs-context.js';
import { modelPrices } from './model-prices.js';

type RecordProviderCalls = Handler<typeof jobsUsageV1.ProviderUsageServiceService.recordProviderCalls>;

/**
 * Workers: records a batch of vendor calls (docs/usage-ledger.md). Every call is checked before
 * anything is written. A call of a job jobs does not have (its account was deleted meanwhile) is
 * still recorded — it is money paid — without owner, model or cost, and its job is named in
 * unknown_job_ids. Prices come through the catalog cache; when catalog cannot answer, the calls
 * are recorded without cost (RecomputeCosts prices them later) rather than held back.
 */
export function recordProviderCalls(context: JobsContext): RecordProviderCalls {
  return async (request) => {
    if (request.calls.length === 0) return { recorded: 0, unknownJobIds: [] };
    if (request.calls.length > MAX_CALLS_PER_RECORD) {
      throw new InvalidArgumentError('calls', `must hold at most ${MAX_CALLS_PER_RECORD} calls`);
    }
    const now = new Date();
    const calls = request.calls.map((call, index) => validateProviderCall(call, index, now));
    const jobIds = [...new Set(calls.map((call) => call.jobId))];
    const modelOfJob = await selectJobModels(context.pool, jobIds);
    const billed = calls.filter((call) => call.vendorId !== '' && hasUnits(call));
    const prices = await modelPrices(
      context,
      billed.map((call) => modelOfJob.get(call.jobId) ?? null),
    );
    const { recorded, billed: spent } = await insertProviderCalls(
      context.pool,
      calls.map((call) => {
        const modelId = modelOfJob.get(call.jobId);
        const modelPriceList = modelId ? prices.get(modelId) : undefined;
        return { ...call, candidateCost: modelPriceList && hasUnits(call) ? callCost(call, modelPriceList) : null };
      }),
    );
    if (spent.length > 0) context.budgets.forget();
    for (const call of spent) context.metrics.providerSpend.inc({ provider: call.providerCode, currency: call.currency }, call.costMicros);
    return { recorded, unknownJobIds: jobIds.filter((jobId) => !modelOfJob.has(jobId)) };
  };
}

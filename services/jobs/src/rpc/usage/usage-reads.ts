import { jobsUsageV1 } from '@atelier/contracts';
import { InvalidArgumentError } from '@atelier/errors';
import type { Handler } from '@atelier/grpc';
import { requireIntInRange, requireUuid } from '@atelier/validation';
import {
  selectJobProviderCalls,
  selectSpend,
  selectTopSpenders,
  type ProviderCallRow,
  type SpendGrouping,
} from '../../db/usage-reads-sql.js';
import { CALL_KINDS, CALL_OUTCOMES, CREDENTIAL_MODES } from '../../domain/provider-call-input.js';
import type { JobsContext } from '../../jobs-context.js';
import { requireUsageWindow } from './usage-window.js';

type Service = typeof jobsUsageV1.ProviderUsageServiceService;

const GROUPINGS: Partial<Record<jobsUsageV1.SpendGrouping, SpendGrouping>> = {
  [jobsUsageV1.SpendGrouping.DAY]: 'day',
  [jobsUsageV1.SpendGrouping.PROVIDER]: 'provider',
  [jobsUsageV1.SpendGrouping.MODEL]: 'model',
};

/** Operators: spend per day, provider or model in a window, and the window's totals. */
export function getSpend({ pool }: JobsContext): Handler<Service['getSpend']> {
  return async (request) => {
    const window = requireUsageWindow(request.from, request.to);
    const grouping = GROUPINGS[request.groupBy];
    if (!grouping) throw new InvalidArgumentError('group_by', 'must be DAY, PROVIDER or MODEL');
    if (request.credentialMode !== '' && !(CREDENTIAL_MODES as readonly string[]).includes(request.credentialMode)) {
      throw new InvalidArgumentError('credential_mode', `must be empty or one of ${CREDENTIAL_MODES.join(', ')}`);
    }
    const spend = await selectSpend(pool, { ...window, credentialMode: request.credentialMode || null }, grouping);
    const toMessage = (row: (typeof spend.rows)[number]): jobsUsageV1.SpendRow => ({ ...row, modelId: row.modelId ?? undefined });
    return { rows: spend.rows.map(toMessage), totals: spend.totals.map(toMessage) };
  };
}

/** Operators only: the users who cost most in a window. */
export function listTopSpenders({ pool }: JobsContext): Handler<Service['listTopSpenders']> {
  return async (request) => {
    const window = requireUsageWindow(request.from, request.to);
    const limit = request.limit === 0 ? 10 : requireIntInRange(request.limit, 'limit', 1, 100);
    const spenders = await selectTopSpenders(pool, window, limit);
    return { spenders: spenders.map((row) => ({ ...row, userId: row.userId ?? undefined })) };
  };
}

/** Operators: a job's calls in order and what they cost. */
export function listJobProviderCalls({ pool }: JobsContext): Handler<Service['listJobProviderCalls']> {
  return async (request) => {
    const rows = await selectJobProviderCalls(pool, requireUuid(request.jobId, 'job_id'));
    const cost = new Map<string, number>();
    for (const row of rows) if (row.cost_micros !== null) cost.set(row.currency!, (cost.get(row.currency!) ?? 0) + row.cost_micros);
    return {
      calls: rows.map(toProviderCallMessage),
      cost: [...cost].map(([currency, costMicros]) => ({ currency, costMicros })),
      billablePredictions: rows.filter((row) => row.billable).length,
    };
  };
}

export function toProviderCallMessage(row: ProviderCallRow): jobsUsageV1.ProviderCall {
  return {
    id: Number(row.id),
    jobId: row.job_id,
    attempt: row.attempt,
    callKind: CALL_KINDS.fromWord(row.call_kind) ?? jobsUsageV1.ProviderCallKind.UNSPECIFIED,
    requestKey: row.request_key,
    vendorId: row.vendor_id,
    providerCode: row.provider_code,
    providerModel: row.provider_model,
    modelVersion: row.model_version,
    modelId: row.model_id ?? undefined,
    credentialMode: row.credential_mode,
    credentialId: row.credential_id,
    outcome: CALL_OUTCOMES.fromWord(row.outcome) ?? jobsUsageV1.ProviderCallOutcome.UNSPECIFIED,
    errorCode: row.error_code ?? undefined,
    httpStatus: row.http_status ?? undefined,
    latencyMs: row.latency_ms,
    predictTimeMs: row.predict_time_ms ?? undefined,
    images: row.images ?? undefined,
    billable: row.billable,
    costMicros: row.cost_micros ?? undefined,
    currency: row.currency ?? undefined,
    calledAt: row.called_at,
    recordedAt: row.recorded_at,
  };
}

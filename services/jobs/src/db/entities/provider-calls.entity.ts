import { defineEntity, p } from '@atelier/orm';
import { MAX_MODEL_VERSION_LENGTH, MAX_PROVIDER_MODEL_LENGTH, MAX_USER_ID_LENGTH } from '@atelier/validation';

/** jobs.provider_calls: the usage ledger, one row per call to an AI vendor (migration 0014). */
export const ProviderCallEntity = defineEntity({
  name: 'ProviderCall',
  tableName: 'provider_calls',
  properties: {
    id: p.bigint('string').primary().generated('identity'),
    jobId: p.uuid(),
    userId: p.string().length(MAX_USER_ID_LENGTH).nullable(),
    attempt: p.smallint(),
    callKind: p.string().length(16),
    requestKey: p.string().length(200),
    vendorId: p.string().length(128).default(''),
    providerCode: p.string().length(64),
    providerModel: p.string().length(MAX_PROVIDER_MODEL_LENGTH),
    modelVersion: p.string().length(MAX_MODEL_VERSION_LENGTH),
    modelId: p.uuid().nullable(),
    credentialMode: p.string().length(16),
    credentialId: p.string().length(128),
    outcome: p.string().length(16),
    errorCode: p.string().length(64).nullable(),
    httpStatus: p.smallint().nullable(),
    latencyMs: p.integer(),
    predictTimeMs: p.integer().nullable(),
    images: p.integer().nullable(),
    billable: p.boolean().default(false),
    costMicros: p.bigint('number').nullable(),
    currency: p.string().length(3).nullable(),
    calledAt: p.datetime(),
    recordedAt: p.datetime().defaultRaw('now()'),
  },
  uniques: [
    { name: 'provider_calls_write_once', properties: ['requestKey', 'callKind', 'vendorId'] },
    { name: 'provider_calls_one_bill_per_prediction', properties: ['providerCode', 'vendorId'], where: 'billable' },
  ],
  indexes: [
    { name: 'provider_calls_by_job', properties: ['jobId', 'calledAt'] },
    { name: 'provider_calls_billed_by_time', properties: ['calledAt', 'providerCode'], where: 'billable' },
    // Reconciliation's (migration 0016).
    { name: 'provider_calls_submit_by_vendor_id', properties: ['providerCode', 'vendorId'], where: `call_kind = 'submit'` },
    { name: 'provider_calls_submit_by_time', properties: ['providerCode', 'calledAt'], where: `call_kind = 'submit'` },
  ],
  // A range is written as the comparisons Postgres stores a BETWEEN as.
  checks: [
    { name: 'provider_calls_attempt_range', expression: 'attempt >= 0 AND attempt <= 20' },
    { name: 'provider_calls_call_kind_known', expression: `call_kind IN ('submit', 'poll', 'cancel', 'output_fetch')` },
    { name: 'provider_calls_request_key_format', expression: 'char_length(request_key) >= 1 AND char_length(request_key) <= 200' },
    { name: 'provider_calls_credential_mode_known', expression: `credential_mode IN ('platform_key', 'user_key')` },
    { name: 'provider_calls_outcome_known', expression: `outcome IN ('ok', 'rate_limited', 'refused', 'unavailable', 'aborted')` },
    { name: 'provider_calls_latency_range', expression: 'latency_ms >= 0' },
    { name: 'provider_calls_predict_time_range', expression: 'predict_time_ms >= 0' },
    { name: 'provider_calls_images_range', expression: 'images >= 0' },
    { name: 'provider_calls_cost_range', expression: 'cost_micros >= 0' },
    { name: 'provider_calls_currency_format', expression: `currency ~ '^[A-Z]{3}$'` },
    { name: 'provider_calls_cost_has_currency', expression: '(cost_micros IS NULL) = (currency IS NULL)' },
    { name: 'provider_calls_only_billable_cost', expression: 'billable OR cost_micros IS NULL' },
  ],
});

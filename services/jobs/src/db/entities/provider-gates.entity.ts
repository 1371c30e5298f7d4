import { defineEntity, p } from '@atelier/orm';
import { MAX_PROVIDER_MODEL_LENGTH } from '@atelier/validation';

/** jobs.spend_budgets: a daily spend limit per provider, or per provider model ('' = all) (migration 0015). */
export const SpendBudgetEntity = defineEntity({
  name: 'SpendBudget',
  tableName: 'spend_budgets',
  properties: {
    providerCode: p.string().length(64).primary(),
    providerModel: p.string().length(MAX_PROVIDER_MODEL_LENGTH).primary().default(''),
    dailyLimitMicros: p.bigint('number'),
    currency: p.string().length(3),
    updatedBy: p.string().length(128),
    updatedAt: p.datetime().defaultRaw('now()'),
    warnedOn: p.date().nullable(),
  },
  primaryKeys: ['providerCode', 'providerModel'],
  checks: [
    { name: 'spend_budgets_limit_range', expression: 'daily_limit_micros >= 0' },
    { name: 'spend_budgets_currency_format', expression: `currency ~ '^[A-Z]{3}$'` },
  ],
});

/** jobs.provider_limits: the vendor's concurrency and request-rate caps on our account (migration 0015). */
export const ProviderLimitEntity = defineEntity({
  name: 'ProviderLimit',
  tableName: 'provider_limits',
  properties: {
    providerCode: p.string().length(64).primary(),
    providerModel: p.string().length(MAX_PROVIDER_MODEL_LENGTH).primary().default(''),
    maxConcurrent: p.integer().nullable(),
    maxRequestsPerSecond: p.integer().nullable(),
    burst: p.integer().nullable(),
    updatedBy: p.string().length(128),
    updatedAt: p.datetime().defaultRaw('now()'),
  },
  primaryKeys: ['providerCode', 'providerModel'],
  checks: [
    { name: 'provider_limits_concurrent_range', expression: 'max_concurrent >= 0 AND max_concurrent <= 100000' },
    { name: 'provider_limits_rate_range', expression: 'max_requests_per_second >= 1 AND max_requests_per_second <= 100000' },
    { name: 'provider_limits_burst_range', expression: 'burst >= 1 AND burst <= 100000' },
    { name: 'provider_limits_rate_on_provider', expression: `provider_model = '' OR max_requests_per_second IS NULL` },
  ],
});

/** jobs.provider_gate_state: the shared request-rate bucket and vendor throttle of a provider (migration 0015). */
export const ProviderGateStateEntity = defineEntity({
  name: 'ProviderGateState',
  tableName: 'provider_gate_state',
  properties: {
    providerCode: p.string().length(64).primary(),
    tokens: p.double().default(0),
    refilledAt: p.datetime().defaultRaw('now()'),
    pausedUntil: p.datetime().nullable(),
    lastRetryAfterMs: p.integer().nullable(),
    throttledAt: p.datetime().nullable(),
  },
  checks: [{ name: 'provider_gate_state_retry_after_range', expression: 'last_retry_after_ms >= 0' }],
});

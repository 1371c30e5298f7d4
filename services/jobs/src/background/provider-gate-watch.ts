import type { SqlPool } from '@atelier/db';
import { startPeriodicTask, type PeriodicTask } from '@atelier/lifecycle';
import type { Logger } from '@atelier/logging';
import { writeBudgetWarnings } from '../db/budget-warning-sql.js';
import { listProviderLimits, listSpendBudgets } from '../db/provider-limits-sql.js';
import type { ProviderGateMetrics } from '../provider-gates-metrics.js';

export interface ProviderGateWatchOptions {
  pool: SqlPool;
  metrics: ProviderGateMetrics;
  /** `<root>.ops.events.provider_budget_warning`. */
  warningSubject: string;
  /** Called after a commit that queued warnings (their outbox rows want publishing). */
  onOutboxWrite: () => void;
  logger: Logger;
  intervalMs: number;
}

/**
 * Every intervalMs: the budgets' and limits' gauges from the database, and the 80 % warning of
 * each budget that crossed it today (once per budget per UTC day: db/budget-warning-sql.ts).
 */
export function startProviderGateWatch(options: ProviderGateWatchOptions): PeriodicTask {
  const { pool, metrics, logger } = options;
  return startPeriodicTask({
    name: 'provider gate watch',
    intervalMs: options.intervalMs,
    logger,
    run: async () => {
      const warned = await writeBudgetWarnings(pool, options.warningSubject);
      if (warned.length > 0) {
        options.onOutboxWrite();
        for (const budget of warned) {
          metrics.budgetWarnings.inc({ provider: budget.provider_code, model: budget.provider_model });
          logger.warn({ provider: budget.provider_code, model: budget.provider_model }, 'a provider budget is 80 % spent today');
        }
      }
      const [budgets, limits] = await Promise.all([listSpendBudgets(pool), listProviderLimits(pool)]);
      for (const gauge of [metrics.budgetUsedRatio, metrics.budgetLimitMicros, metrics.budgetSpentMicros]) gauge.reset();
      for (const budget of budgets) {
        const labels = { provider: budget.provider_code, model: budget.provider_model };
        const limit = Number(budget.daily_limit_micros);
        const spent = Number(budget.spent_today_micros);
        metrics.budgetLimitMicros.set(labels, limit);
        metrics.budgetSpentMicros.set(labels, spent);
        metrics.budgetUsedRatio.set(labels, limit > 0 ? spent / limit : 1);
      }
      for (const gauge of [metrics.concurrencyCap, metrics.running, metrics.rateCap, metrics.throttled]) gauge.reset();
      for (const limit of limits) {
        const labels = { provider: limit.provider_code, model: limit.provider_model };
        if (limit.max_concurrent !== null) metrics.concurrencyCap.set(labels, limit.max_concurrent);
        metrics.running.set(labels, limit.running);
        if (limit.max_requests_per_second !== null) metrics.rateCap.set({ provider: limit.provider_code }, limit.max_requests_per_second);
        metrics.throttled.set({ provider: limit.provider_code }, limit.paused_until ? 1 : 0);
      }
    },
  });
}

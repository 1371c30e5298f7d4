import type { jobsUsageV1 } from '@atelier/contracts';
import type { Handler } from '@atelier/grpc';
import { selectBilledRows, updateCosts } from '../../db/provider-calls-sql.js';
import { callCost } from '../../domain/call-cost.js';
import type { JobsContext } from '../../jobs-context.js';
import { modelPrices } from './model-prices.js';
import { requireUsageWindow } from './usage-window.js';

type RecomputeCosts = Handler<typeof jobsUsageV1.ProviderUsageServiceService.recomputeCosts>;

const BATCH = 500;

/**
 * Operators: the cost of every billable row of a window again, from its units and the catalog's
 * price history now (the same rule as at write, domain/call-cost.ts), in batches by id. Idempotent:
 * a second run changes nothing. A model catalog cannot price now keeps its rows' cost.
 */
export function recomputeCosts(context: JobsContext): RecomputeCosts {
  return async (request) => {
    const window = requireUsageWindow(request.from, request.to);
    let examined = 0;
    let changed = 0;
    for (let after = '0'; ;) {
      const rows = await selectBilledRows(context.pool, window, after, BATCH);
      if (rows.length === 0) break;
      examined += rows.length;
      after = rows.at(-1)!.id;
      const prices = await modelPrices(
        context,
        rows.map((row) => row.modelId),
      );
      const costs = rows.flatMap((row) => {
        const list = row.modelId ? prices.get(row.modelId) : undefined;
        if (!list) return [];
        const cost = callCost(row, list);
        return [{ id: row.id, costMicros: cost?.costMicros ?? null, currency: cost?.currency ?? null }];
      });
      changed += await updateCosts(context.pool, costs);
      context.budgets.forget();
      if (rows.length < BATCH) break;
    }
    return { examined, changed };
  };
}

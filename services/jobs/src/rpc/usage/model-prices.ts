import type { UnitPrice } from '../../domain/call-cost.js';
import type { JobsContext } from '../../jobs-context.js';

/**
 * The price history of each model named, read through the catalog cache (a price set in catalog
 * drops the cached model: its change notice). A model catalog cannot give now is left out: its
 * calls get no cost, and RecomputeCosts prices them later.
 */
export async function modelPrices(
  context: Pick<JobsContext, 'peers' | 'logger'>,
  modelIds: readonly (string | null)[],
): Promise<Map<string, UnitPrice[]>> {
  const distinct = [...new Set(modelIds.filter((id): id is string => id !== null))];
  const prices = new Map<string, UnitPrice[]>();
  await Promise.all(
    distinct.map(async (modelId) => {
      try {
        prices.set(modelId, (await context.peers.catalog.model(modelId)).prices);
      } catch (error) {
        context.logger.warn({ err: error, modelId }, 'no prices from catalog: the calls of this model are recorded without cost');
      }
    }),
  );
  return prices;
}

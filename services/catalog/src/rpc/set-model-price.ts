import type { catalogV1 } from '@atelier/contracts';
import { AlreadyExistsError, InvalidArgumentError, NotFoundError } from '@atelier/errors';
import type { Handler } from '@atelier/grpc';
import { auditedChange, requireOperatorActor } from '@atelier/operator-audit';
import type { CatalogContext } from '../catalog-context.js';
import { lockModel, selectModel } from '../db/catalog-sql.js';
import { insertModelPrice, selectModelPrices } from '../db/model-prices-sql.js';
import { validateModelPrice } from '../domain/model-prices.js';
import { toModelMessage } from './catalog-mapper.js';
import { modelTarget } from './catalog-audit.js';

type SetModelPrice = Handler<typeof catalogV1.CatalogServiceService.setModelPrice>;

/**
 * Operators: adds a price from now (or later) on, with its audit entry in the same transaction;
 * announced so that jobs' cached model drops.
 */
export function setModelPrice({ pool, announceChange }: CatalogContext): SetModelPrice {
  return async (request) => {
    const price = validateModelPrice(request, new Date());
    const actor = requireOperatorActor(request.actor);
    const audited = { action: 'catalog.model.price', actor, target: `model-id:${price.modelId}` };
    await auditedChange(pool, 'catalog', audited, async (tx) => {
      const model = await lockModel(tx, { id: price.modelId });
      if (!model) throw new NotFoundError('model');
      const result = await insertModelPrice(tx, price);
      if (result === 'no_model') throw new NotFoundError('model');
      if (result === 'duplicate') throw new AlreadyExistsError('MODEL_PRICE_EXISTS', 'the unit already has a price from that time');
      if (typeof result === 'object') {
        throw new InvalidArgumentError('currency', `must be ${result.otherCurrency}, the currency of the model's other prices`);
      }
      const after = {
        unit: price.unit,
        unitPriceMicros: price.unitPriceMicros,
        currency: price.currency,
        effectiveFrom: price.effectiveFrom,
      };
      return { result: undefined, after, target: modelTarget(model.code) };
    });
    announceChange({ kind: 'model', id: price.modelId });
    const [model, prices] = await Promise.all([selectModel(pool, price.modelId), selectModelPrices(pool, [price.modelId])]);
    return { model: toModelMessage(model!, prices.get(price.modelId)) };
  };
}

import type { catalogV1 } from '@atelier/contracts';
import { AlreadyExistsError, InvalidArgumentError, NotFoundError } from '@atelier/errors';
import type { Handler } from '@atelier/grpc';
import type { CatalogContext } from '../catalog-context.js';
import { selectModel } from '../db/catalog-sql.js';
import { insertModelPrice, selectModelPrices } from '../db/model-prices-sql.js';
import { validateModelPrice } from '../domain/model-prices.js';
import { toModelMessage } from './catalog-mapper.js';

type SetModelPrice = Handler<typeof catalogV1.CatalogServiceService.setModelPrice>;

/** Operators: adds a price from now (or later) on; announced so that jobs' cached model drops. */
export function setModelPrice({ pool, announceChange }: CatalogContext): SetModelPrice {
  return async (request) => {
    const price = validateModelPrice(request, new Date());
    const result = await insertModelPrice(pool, price);
    if (result === 'no_model') throw new NotFoundError('model');
    if (result === 'duplicate') throw new AlreadyExistsError('MODEL_PRICE_EXISTS', 'the unit already has a price from that time');
    if (typeof result === 'object') {
      throw new InvalidArgumentError('currency', `must be ${result.otherCurrency}, the currency of the model's other prices`);
    }
    announceChange({ kind: 'model', id: price.modelId });
    const [model, prices] = await Promise.all([selectModel(pool, price.modelId), selectModelPrices(pool, [price.modelId])]);
    return { model: toModelMessage(model!, prices.get(price.modelId)) };
  };
}

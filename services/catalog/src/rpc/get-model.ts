import type { catalogV1 } from '@atelier/contracts';
import { NotFoundError } from '@atelier/errors';
import type { Handler } from '@atelier/grpc';
import type { CatalogContext } from '../catalog-context.js';
import { selectModel } from '../db/catalog-sql.js';
import { selectModelPrices } from '../db/model-prices-sql.js';
import { requireId } from '../domain/catalog-rules.js';
import { toModelMessage } from './catalog-mapper.js';

type GetModel = Handler<typeof catalogV1.CatalogServiceService.getModel>;

export function getModel({ pool }: CatalogContext): GetModel {
  return async (request) => {
    const modelId = requireId(request.modelId, 'model_id');
    const [model, prices] = await Promise.all([selectModel(pool, modelId), selectModelPrices(pool, [modelId])]);
    if (!model) throw new NotFoundError('model');
    return { model: toModelMessage(model, prices.get(model.id)) };
  };
}

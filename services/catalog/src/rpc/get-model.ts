import type { catalogV1 } from '@atelier/contracts';
import { NotFoundError } from '@atelier/errors';
import type { Handler } from '@atelier/grpc';
import type { CatalogContext } from '../catalog-context.js';
import { findModel } from '../db/catalog-repository.js';
import { requireId } from '../domain/catalog-rules.js';
import { toModelMessage } from '../mappers.js';

type GetModel = Handler<typeof catalogV1.CatalogServiceService.getModel>;

export function getModel({ pool }: CatalogContext): GetModel {
  return async (request) => {
    const model = await findModel(pool, requireId(request.modelId, 'model_id'));
    if (!model) throw new NotFoundError('model');
    return { model: toModelMessage(model) };
  };
}

import type { catalogV1 } from '@atelier/contracts';
import { NotFoundError } from '@atelier/errors';
import type { Handler } from '@atelier/grpc';
import type { CatalogContext } from '../catalog-context.js';
import { ModelEntity } from '../db/entities.js';
import { requireId } from '../domain/catalog-rules.js';
import { toModelMessage } from '../mappers.js';

type GetModel = Handler<typeof catalogV1.CatalogServiceService.getModel>;

export function getModel({ orm }: CatalogContext): GetModel {
  return async (request) => {
    const id = requireId(request.modelId, 'model_id');
    const model = await orm.em.fork().findOne(ModelEntity, { id });
    if (!model) throw new NotFoundError('model');
    return { model: toModelMessage(model) };
  };
}

import type { catalogV1 } from '@atelier/contracts';
import { NotFoundError } from '@atelier/errors';
import type { Handler } from '@atelier/grpc';
import type { CatalogContext } from '../catalog-context.js';
import * as catalog from '../db/catalog-repository.js';
import { requireId } from '../domain/catalog-rules.js';
import { toModelMessage, toStyleMessage } from '../mappers.js';

type SetModelEnabled = Handler<typeof catalogV1.CatalogServiceService.setModelEnabled>;
type SetStyleEnabled = Handler<typeof catalogV1.CatalogServiceService.setStyleEnabled>;

export function setModelEnabled({ pool }: CatalogContext): SetModelEnabled {
  return async (request) => {
    const model = await catalog.setModelEnabled(pool, requireId(request.modelId, 'model_id'), request.enabled);
    if (!model) throw new NotFoundError('model');
    return { model: toModelMessage(model) };
  };
}

export function setStyleEnabled({ pool }: CatalogContext): SetStyleEnabled {
  return async (request) => {
    const style = await catalog.setStyleEnabled(pool, requireId(request.styleId, 'style_id'), request.enabled);
    if (!style) throw new NotFoundError('style');
    return { style: toStyleMessage(style) };
  };
}

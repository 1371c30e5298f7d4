import type { catalogV1 } from '@atelier/contracts';
import { NotFoundError } from '@atelier/errors';
import type { Handler } from '@atelier/grpc';
import type { CatalogContext } from '../catalog-context.js';
import { updateModelEnabled, updateStyleEnabled } from '../db/catalog-sql.js';
import { requireId } from '../domain/catalog-rules.js';
import { toModelMessage, toStyleMessage } from './catalog-mapper.js';

type SetModelEnabled = Handler<typeof catalogV1.CatalogServiceService.setModelEnabled>;
type SetStyleEnabled = Handler<typeof catalogV1.CatalogServiceService.setStyleEnabled>;

/** One autocommitted UPDATE: committed when it answers, then announced (readers drop their copy). */
export function setModelEnabled({ pool, announceChange }: CatalogContext): SetModelEnabled {
  return async (request) => {
    const model = await updateModelEnabled(pool, requireId(request.modelId, 'model_id'), request.enabled);
    if (!model) throw new NotFoundError('model');
    announceChange({ kind: 'model', id: model.id });
    return { model: toModelMessage(model) };
  };
}

export function setStyleEnabled({ pool, announceChange }: CatalogContext): SetStyleEnabled {
  return async (request) => {
    const style = await updateStyleEnabled(pool, requireId(request.styleId, 'style_id'), request.enabled);
    if (!style) throw new NotFoundError('style');
    announceChange({ kind: 'style', id: style.id });
    return { style: toStyleMessage(style) };
  };
}

import type { catalogV1 } from '@atelier/contracts';
import { NotFoundError } from '@atelier/errors';
import type { Handler } from '@atelier/grpc';
import { auditedChange, requireOperatorActor } from '@atelier/operator-audit';
import type { CatalogContext } from '../catalog-context.js';
import { lockModel, lockStyle, updateModelEnabled, updateStyleEnabled } from '../db/catalog-sql.js';
import { requireId } from '../domain/catalog-rules.js';
import { toModelMessage, toStyleMessage } from './catalog-mapper.js';
import { entrySnapshot, modelTarget, styleTarget } from './catalog-audit.js';

type SetModelEnabled = Handler<typeof catalogV1.CatalogServiceService.setModelEnabled>;
type SetStyleEnabled = Handler<typeof catalogV1.CatalogServiceService.setStyleEnabled>;

/**
 * Shows or hides a model with its audit entry in one transaction (idempotent: updated_at moves
 * only when the flag changes; the entry is written either way), then announced after the commit
 * (readers drop their copy).
 */
export function setModelEnabled({ pool, announceChange }: CatalogContext): SetModelEnabled {
  return async (request) => {
    const id = requireId(request.modelId, 'model_id');
    const actor = requireOperatorActor(request.actor);
    const action = request.enabled ? 'catalog.model.enable' : 'catalog.model.disable';
    const model = await auditedChange(pool, 'catalog', { action, actor, target: `model-id:${id}` }, async (tx) => {
      const before = await lockModel(tx, { id });
      if (!before) throw new NotFoundError('model');
      const after = (await updateModelEnabled(tx, id, request.enabled))!;
      return { result: after, before: entrySnapshot(before), after: entrySnapshot(after), target: modelTarget(after.code) };
    });
    announceChange({ kind: 'model', id: model.id });
    return { model: toModelMessage(model) };
  };
}

export function setStyleEnabled({ pool, announceChange }: CatalogContext): SetStyleEnabled {
  return async (request) => {
    const id = requireId(request.styleId, 'style_id');
    const actor = requireOperatorActor(request.actor);
    const action = request.enabled ? 'catalog.style.enable' : 'catalog.style.disable';
    const style = await auditedChange(pool, 'catalog', { action, actor, target: `style-id:${id}` }, async (tx) => {
      const before = await lockStyle(tx, { id });
      if (!before) throw new NotFoundError('style');
      const after = (await updateStyleEnabled(tx, id, request.enabled))!;
      return { result: after, before: entrySnapshot(before), after: entrySnapshot(after), target: styleTarget(after.code) };
    });
    announceChange({ kind: 'style', id: style.id });
    return { style: toStyleMessage(style) };
  };
}

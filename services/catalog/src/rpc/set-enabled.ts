import type { catalogV1 } from '@atelier/contracts';
import { NotFoundError } from '@atelier/errors';
import type { Handler } from '@atelier/grpc';
import type { CatalogContext } from '../catalog-context.js';
import { ModelEntity, StyleEntity } from '../db/entities.js';
import { requireId } from '../domain/catalog-rules.js';
import { toModelMessage, toStyleMessage } from '../mappers.js';

type SetModelEnabled = Handler<typeof catalogV1.CatalogServiceService.setModelEnabled>;
type SetStyleEnabled = Handler<typeof catalogV1.CatalogServiceService.setStyleEnabled>;

// Idempotent: updated_at moves only when the flag actually changes.
const setEnabledSql = (table: 'models' | 'styles') => `
  UPDATE catalog.${table}
     SET enabled = ?, updated_at = CASE WHEN enabled = ? THEN updated_at ELSE now() END
   WHERE id = ?
  RETURNING id`;

export function setModelEnabled({ orm }: CatalogContext): SetModelEnabled {
  return async (request) => {
    const id = requireId(request.modelId, 'model_id');
    const em = orm.em.fork();
    const rows = await em.execute(setEnabledSql('models'), [request.enabled, request.enabled, id]);
    if (rows.length === 0) throw new NotFoundError('model');
    return { model: toModelMessage(await em.findOneOrFail(ModelEntity, { id })) };
  };
}

export function setStyleEnabled({ orm }: CatalogContext): SetStyleEnabled {
  return async (request) => {
    const id = requireId(request.styleId, 'style_id');
    const em = orm.em.fork();
    const rows = await em.execute(setEnabledSql('styles'), [request.enabled, request.enabled, id]);
    if (rows.length === 0) throw new NotFoundError('style');
    return { style: toStyleMessage(await em.findOneOrFail(StyleEntity, { id })) };
  };
}

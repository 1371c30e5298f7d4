import type { catalogV1 } from '@atelier/contracts';
import { NotFoundError } from '@atelier/errors';
import type { Handler } from '@atelier/grpc';
import type { CatalogContext } from '../catalog-context.js';
import { StyleEntity } from '../db/entities.js';
import { requireId } from '../domain/catalog-rules.js';
import { toStyleMessage } from '../mappers.js';

type GetStyle = Handler<typeof catalogV1.CatalogServiceService.getStyle>;

export function getStyle({ orm }: CatalogContext): GetStyle {
  return async (request) => {
    const id = requireId(request.styleId, 'style_id');
    const style = await orm.em.fork().findOne(StyleEntity, { id });
    if (!style) throw new NotFoundError('style');
    return { style: toStyleMessage(style) };
  };
}

import type { catalogV1 } from '@atelier/contracts';
import { NotFoundError } from '@atelier/errors';
import type { Handler } from '@atelier/grpc';
import type { CatalogContext } from '../catalog-context.js';
import { findStyle } from '../db/catalog-repository.js';
import { requireId } from '../domain/catalog-rules.js';
import { toStyleMessage } from '../mappers.js';

type GetStyle = Handler<typeof catalogV1.CatalogServiceService.getStyle>;

export function getStyle({ pool }: CatalogContext): GetStyle {
  return async (request) => {
    const style = await findStyle(pool, requireId(request.styleId, 'style_id'));
    if (!style) throw new NotFoundError('style');
    return { style: toStyleMessage(style) };
  };
}

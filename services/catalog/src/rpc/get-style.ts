import type { catalogV1 } from '@atelier/contracts';
import { NotFoundError } from '@atelier/errors';
import type { Handler } from '@atelier/grpc';
import type { CatalogContext } from '../catalog-context.js';
import { selectStyle } from '../db/catalog-sql.js';
import { requireId } from '../domain/catalog-rules.js';
import { toStyleMessage } from './catalog-mapper.js';

type GetStyle = Handler<typeof catalogV1.CatalogServiceService.getStyle>;

export function getStyle({ pool }: CatalogContext): GetStyle {
  return async (request) => {
    const style = await selectStyle(pool, requireId(request.styleId, 'style_id'));
    if (!style) throw new NotFoundError('style');
    return { style: toStyleMessage(style) };
  };
}

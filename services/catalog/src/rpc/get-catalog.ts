import type { catalogV1 } from '@atelier/contracts';
import type { Handler } from '@atelier/grpc';
import type { CatalogContext } from '../catalog-context.js';
import { ModelEntity, StyleEntity } from '../db/entities.js';
import { requireMediaKind } from '../domain/media-kind.js';
import { toModelMessage, toStyleMessage } from '../mappers.js';

type GetCatalog = Handler<typeof catalogV1.CatalogServiceService.getCatalog>;

/** Enabled entries of one kind in display order (served by the partial `*_enabled_listing_idx`). */
export function getCatalog({ orm }: CatalogContext): GetCatalog {
  return async (request) => {
    const mediaKind = requireMediaKind(request.mediaKind);
    const em = orm.em.fork();
    const orderBy = { sortOrder: 'asc', id: 'asc' } as const;
    const models = await em.find(ModelEntity, { mediaKind, enabled: true }, { orderBy });
    const styles = await em.find(StyleEntity, { mediaKind, enabled: true }, { orderBy });
    return { models: models.map(toModelMessage), styles: styles.map(toStyleMessage) };
  };
}

import { commonV1, type catalogV1 } from '@atelier/contracts';
import type { Handler } from '@atelier/grpc';
import type { CatalogContext } from '../catalog-context.js';
import { ModelEntity, StyleEntity } from '../db/entities.js';
import { requireMediaKind } from '../domain/media-kind.js';
import { toModelMessage, toStyleMessage } from '../mappers.js';

type ListCatalogEntries = Handler<typeof catalogV1.CatalogServiceService.listCatalogEntries>;

/** Operators: everything, disabled entries included, grouped by kind then display order. */
export function listCatalogEntries({ orm }: CatalogContext): ListCatalogEntries {
  return async (request) => {
    const where = request.mediaKind === commonV1.MediaKind.UNSPECIFIED ? {} : { mediaKind: requireMediaKind(request.mediaKind) };
    const em = orm.em.fork();
    const orderBy = { mediaKind: 'asc', sortOrder: 'asc', id: 'asc' } as const;
    const models = await em.find(ModelEntity, where, { orderBy });
    const styles = await em.find(StyleEntity, where, { orderBy });
    return { models: models.map(toModelMessage), styles: styles.map(toStyleMessage) };
  };
}

import type { catalogV1 } from '@atelier/contracts';
import type { Handler } from '@atelier/grpc';
import type { CatalogContext } from '../catalog-context.js';
import { selectEnabledEntries } from '../db/catalog-sql.js';
import { requireMediaKind } from '../domain/media-kind.js';
import { toModelMessage, toStyleMessage } from './catalog-mapper.js';

type GetCatalog = Handler<typeof catalogV1.CatalogServiceService.getCatalog>;

/** Enabled entries of one kind in display order. */
export function getCatalog({ pool }: CatalogContext): GetCatalog {
  return async (request) => {
    const { models, styles } = await selectEnabledEntries(pool, requireMediaKind(request.mediaKind));
    return { models: models.map((model) => toModelMessage(model)), styles: styles.map(toStyleMessage) };
  };
}

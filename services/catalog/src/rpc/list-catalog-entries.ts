import { commonV1, type catalogV1 } from '@atelier/contracts';
import type { Handler } from '@atelier/grpc';
import type { CatalogContext } from '../catalog-context.js';
import { selectAllEntries } from '../db/catalog-sql.js';
import { selectModelPrices } from '../db/model-prices-sql.js';
import { requireMediaKind } from '../domain/media-kind.js';
import { toModelMessage, toStyleMessage } from './catalog-mapper.js';

type ListCatalogEntries = Handler<typeof catalogV1.CatalogServiceService.listCatalogEntries>;

/** Operators: everything, disabled entries included, grouped by kind then display order. */
export function listCatalogEntries({ pool }: CatalogContext): ListCatalogEntries {
  return async (request) => {
    const mediaKind = request.mediaKind === commonV1.MediaKind.UNSPECIFIED ? undefined : requireMediaKind(request.mediaKind);
    const { models, styles } = await selectAllEntries(pool, mediaKind);
    const prices = await selectModelPrices(
      pool,
      models.map((model) => model.id),
    );
    return { models: models.map((model) => toModelMessage(model, prices.get(model.id))), styles: styles.map(toStyleMessage) };
  };
}

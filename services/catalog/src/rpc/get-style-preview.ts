import type { catalogV1 } from '@atelier/contracts';
import { NotFoundError } from '@atelier/errors';
import type { Handler } from '@atelier/grpc';
import type { CatalogContext } from '../catalog-context.js';
import { selectStyle } from '../db/catalog-sql.js';
import { requireId } from '../domain/catalog-rules.js';

type GetStylePreview = Handler<typeof catalogV1.CatalogServiceService.getStylePreview>;

/**
 * An enabled style's preview as a download URL. The one rule that makes an asset public: an
 * enabled style names it. A disabled style, one without a preview and a vanished asset all answer
 * the same NOT_FOUND, so the public route behind it tells nothing apart.
 */
export function getStylePreview({ pool, previews }: CatalogContext): GetStylePreview {
  return async (request) => {
    const style = await selectStyle(pool, requireId(request.styleId, 'style_id'));
    const link = style?.enabled && style.previewAssetId ? await previews.link(style.previewAssetId) : undefined;
    if (!link) throw new NotFoundError('style preview');
    return { downloadUrl: link.url, downloadExpiresAt: link.expiresAt, contentType: link.contentType };
  };
}

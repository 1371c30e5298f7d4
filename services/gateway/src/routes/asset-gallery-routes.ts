import type { FastifyInstance } from 'fastify';
import { mediaV1 } from '@atelier/contracts';
import { callerOf } from '../auth/authenticate.js';
import type { GatewayContext } from '../gateway-context.js';
import { idParam, nullableString, object, pageQuery, ref, responses } from '../http/schemas.js';
import { toAssetDto } from './dto-mapper.js';
import { assetPurposes } from '../http/api-enums.js';
import type { OutputLinks } from './output-links.js';

const galleryPage = object({
  items: {
    type: 'array',
    items: object({
      asset: ref('Asset'),
      url: { ...nullableString, description: 'short-lived download URL when the asset is ready; use it at once, never store it' },
      urlExpiresAt: { ...nullableString, format: 'date-time' },
    }),
  },
  nextCursor: { ...nullableString, description: 'pass as cursor for the next page; null on the last page' },
});

/**
 * The owner's gallery (GET /api/v1/media/assets) and delete (DELETE /api/v1/media/assets/{id}).
 * Download URLs come from media's listing in the one call (signing stays in media); each is handed
 * to OutputLinks, so the job views of those outputs reuse it, and a delete drops it there.
 */
export function registerAssetGalleryRoutes(app: FastifyInstance, { peers }: GatewayContext, links: OutputLinks): void {
  app.get<{ Querystring: { purpose?: string; cursor?: string; limit: number } }>(
    '/api/v1/media/assets',
    {
      schema: {
        tags: ['media'],
        operationId: 'listAssets',
        summary: "The caller's uploads and generated images, newest first, with download URLs (a gallery)",
        description:
          'Every asset of the caller that is not deleted — uploads still uploading (with refusalReason when a completion refused them), ready ones, and ones being deleted — optionally of one purpose (ai_output: the generated images). Cursor pages of 1–100 (default 20); a bad purpose, limit or cursor is 400.',
        querystring: pageQuery({ purpose: { type: 'string', enum: assetPurposes.words, description: 'only assets of this purpose' } }),
        response: responses({ 200: galleryPage }),
      },
    },
    async (request) => {
      const caller = callerOf(request).userId;
      const page = await peers.media.listAssets({
        ownerUserId: caller,
        purpose: request.query.purpose ? assetPurposes.fromApi(request.query.purpose)! : mediaV1.AssetPurpose.UNSPECIFIED,
        pageSize: request.query.limit,
        cursor: request.query.cursor ?? '',
      });
      return {
        items: page.items.map(({ asset, downloadUrl, downloadExpiresAt }) => {
          const link = downloadUrl ? links.remember(asset!.id, caller, { url: downloadUrl, expiresAt: downloadExpiresAt }) : undefined;
          return { asset: toAssetDto(asset!), url: link?.url ?? null, urlExpiresAt: link?.expiresAt?.toISOString() ?? null };
        }),
        nextCursor: page.nextCursor || null,
      };
    },
  );

  app.delete<{ Params: { assetId: string } }>(
    '/api/v1/media/assets/:assetId',
    {
      schema: {
        tags: ['media'],
        operationId: 'deleteAsset',
        summary: 'Delete an asset of the caller for good: its bytes and its record',
        description:
          '204 once the bytes and the record are gone. 409 ASSET_IN_USE (40906) while a queued or running generation uses the image or a published post shows it; the asset is then unchanged. Deleting again, or someone else\'s asset, is 404 MEDIA_NOT_FOUND (40405): existence is never revealed. A 503 leaves the asset "deleting"; send the DELETE again to finish it.',
        params: idParam('assetId'),
        response: responses({ 204: { type: 'null', description: 'deleted' } }),
      },
    },
    async (request, reply) => {
      const caller = callerOf(request).userId;
      await peers.media.deleteOwnAsset({ assetId: request.params.assetId, ownerUserId: caller });
      links.forget(request.params.assetId, caller);
      return reply.code(204).send();
    },
  );
}

import type { FastifyInstance } from 'fastify';
import type { catalogV1 } from '@atelier/contracts';
import { ExpiringCache } from '@atelier/caching';
import type { PromiseClient } from '@atelier/grpc';
import type { GatewayContext } from '../gateway-context.js';
import { idParam, object, responses } from '../http/schemas.js';
import { reuseDeadline } from './output-links.js';

const PREVIEW_LINK_CACHE_SIZE = 1_000;

/**
 * The presigned URL of each style's preview, looked up in catalog (which alone decides a preview
 * is public: its style is enabled) and reused within `reuseDeadline`, so a catalog screen of
 * thumbnails costs catalog and media one lookup per style, not one per image load.
 */
class PreviewLinks {
  private readonly links = new ExpiringCache<string, catalogV1.GetStylePreviewResponse>(PREVIEW_LINK_CACHE_SIZE);

  constructor(private readonly catalog: PromiseClient<catalogV1.CatalogServiceClient>) {}

  async get(styleId: string): Promise<{ link: catalogV1.GetStylePreviewResponse; reuseUntil: number }> {
    const cached = this.links.get(styleId);
    if (cached) return { link: cached, reuseUntil: reuseDeadline(cached.downloadExpiresAt, Date.now()) };
    const link = await this.catalog.getStylePreview({ styleId });
    const reuseUntil = reuseDeadline(link.downloadExpiresAt, Date.now());
    this.links.set(styleId, link, reuseUntil);
    return { link, reuseUntil };
  }
}

/**
 * `GET /public/styles/{styleId}/preview`: 302 to the preview's short-lived download URL, for any
 * caller. Only the preview of an enabled style is served: any other id (unknown, disabled, no
 * preview) is the same 404. Outside `/api/`, so the per-address rate limit of unauthenticated
 * routes applies to it.
 */
export function registerStylePreviewRoute(app: FastifyInstance, { peers }: GatewayContext): void {
  const previews = new PreviewLinks(peers.catalog);
  app.get<{ Params: { styleId: string } }>(
    '/public/styles/:styleId/preview',
    {
      schema: {
        tags: ['creation'],
        operationId: 'getStylePreview',
        summary: "A style's preview image (public: no token needed); the catalog's previewUrl",
        description:
          'Redirects (302) to a short-lived download URL of the image; the redirect itself may be cached for as long as Cache-Control says. With `Accept: application/json`, answers that URL as JSON instead (200). 404 for a style that does not exist, is disabled or has no preview.',
        params: idParam('styleId'),
        response: responses({
          200: {
            description: 'with Accept: application/json: the short-lived URL itself (load it, never store it)',
            ...object({ url: { type: 'string', format: 'uri' }, expiresAt: { type: ['string', 'null'], format: 'date-time' } }),
          },
          302: {
            description: 'the image is at Location (a presigned URL: load it, never store it)',
            headers: {
              location: { type: 'string', format: 'uri' },
              'cache-control': { type: 'string', description: 'public, max-age=<seconds the redirect stays good>' },
            },
            type: 'null',
          },
        }),
      },
    },
    async (request, reply) => {
      const { link, reuseUntil } = await previews.get(request.params.styleId);
      const maxAge = Math.max(0, Math.floor((reuseUntil - Date.now()) / 1000));
      reply.header('cache-control', `public, max-age=${maxAge}`);
      if (request.headers.accept?.includes('application/json')) {
        return { url: link.downloadUrl, expiresAt: link.downloadExpiresAt?.toISOString() ?? null };
      }
      return reply.code(302).header('location', link.downloadUrl).send();
    },
  );
}

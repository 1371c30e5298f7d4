import type { FastifyInstance } from 'fastify';
import type { GatewayContext } from '../gateway-context.js';
import { toModelDto, toStyleDto } from './dto-mapper.js';
import { mediaKinds } from '../http/api-enums.js';
import { object, ref, responses } from '../http/schemas.js';
import { localeOf } from '../i18n/request-locale.js';

export function registerCatalogRoutes(app: FastifyInstance, { peers }: GatewayContext): void {
  app.get<{ Querystring: { mediaKind: string } }>(
    '/api/v1/creation/catalog',
    {
      schema: {
        operationId: 'getCreationCatalog',
        tags: ['creation'],
        summary: 'The models and styles a user can pick, in display order',
        description:
          'Names (model displayName, style title and subtitle) are in the language negotiated from Accept-Language (Content-Language says which), English where an entry has no translation.',
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: { mediaKind: { type: 'string', enum: ['image'], default: 'image', description: 'only image for now' } },
        },
        response: responses({
          200: object({ models: { type: 'array', items: ref('Model') }, styles: { type: 'array', items: ref('Style') } }),
        }),
      },
    },
    async (request) => {
      const catalog = await peers.catalog.getCatalog({ mediaKind: mediaKinds.fromApi(request.query.mediaKind)! });
      const locale = localeOf(request);
      return { models: catalog.models.map((m) => toModelDto(m, locale)), styles: catalog.styles.map((s) => toStyleDto(s, locale)) };
    },
  );
}

import type { FastifyInstance } from 'fastify';
import type { GatewayContext } from '../gateway-context.js';
import { toModelDto, toStyleDto, mediaKinds } from './dto-mapper.js';
import { object, ref, responses } from '../http/schemas.js';

export function registerCatalogRoutes(app: FastifyInstance, { peers }: GatewayContext): void {
  app.get<{ Querystring: { mediaKind: string } }>(
    '/api/v1/creation/catalog',
    {
      schema: {
        operationId: 'getCatalog',
        tags: ['creation'],
        summary: 'The models and styles a user can pick, in display order',
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
      return { models: catalog.models.map(toModelDto), styles: catalog.styles.map(toStyleDto) };
    },
  );
}

import type { FastifyInstance } from 'fastify';
import { IMAGE_SIDE_RANGE } from '@atelier/images';
import { callerOf } from '../auth/authenticate.js';
import type { GatewayContext } from '../gateway-context.js';
import { toAssetDto } from './dto-mapper.js';
import { assetPurposes } from '../http/api-enums.js';
import { USER_PURPOSES, idParam, nullableString, object, ref, responses } from '../http/schemas.js';

export function registerMediaRoutes(app: FastifyInstance, { peers }: GatewayContext): void {
  app.post<{ Body: { purpose: string; contentType: string; sizeBytes: number } }>(
    '/api/v1/media/uploads',
    {
      schema: {
        operationId: 'createUpload',
        tags: ['media'],
        summary: 'Start a two-step upload: PUT the bytes to the returned URL, then complete it',
        body: object({
          purpose: { type: 'string', enum: USER_PURPOSES },
          contentType: { type: 'string', enum: ['image/png', 'image/jpeg', 'image/webp'] },
          sizeBytes: { type: 'integer', minimum: 1, maximum: 20 * 1024 * 1024 },
        }),
        response: responses({
          201: object({
            asset: ref('Asset'),
            upload: object({
              url: { type: 'string' },
              method: { type: 'string', enum: ['PUT'] },
              headers: { type: 'object', additionalProperties: { type: 'string' } },
              expiresAt: { type: 'string', format: 'date-time' },
            }),
          }),
        }),
      },
    },
    async (request, reply) => {
      const upload = await peers.media.createUpload({
        ownerUserId: callerOf(request).userId,
        purpose: assetPurposes.fromApi(request.body.purpose)!,
        contentType: request.body.contentType,
        sizeBytes: request.body.sizeBytes,
      });
      reply.code(201);
      return {
        asset: toAssetDto(upload.asset!),
        upload: { url: upload.uploadUrl, method: 'PUT', headers: upload.uploadHeaders, expiresAt: upload.uploadExpiresAt!.toISOString() },
      };
    },
  );

  app.post<{ Params: { assetId: string } }>(
    '/api/v1/media/uploads/:assetId/complete',
    {
      schema: {
        operationId: 'completeUpload',
        tags: ['media'],
        summary: `Verify the uploaded bytes (size, real image type, ${IMAGE_SIDE_RANGE}) and make the asset ready`,
        params: idParam('assetId'),
        response: responses({ 200: object({ asset: ref('Asset') }) }),
      },
    },
    async (request) => {
      const { asset } = await peers.media.completeUpload({ assetId: request.params.assetId, ownerUserId: callerOf(request).userId });
      return { asset: toAssetDto(asset!) };
    },
  );

  app.get<{ Params: { assetId: string } }>(
    '/api/v1/media/assets/:assetId',
    {
      schema: {
        operationId: 'getAsset',
        tags: ['media'],
        summary: 'An asset of the caller with a short-lived download URL (use it at once; never store it)',
        params: idParam('assetId'),
        response: responses({ 200: object({ asset: ref('Asset'), url: nullableString, urlExpiresAt: nullableString }) }),
      },
    },
    async (request) => {
      const found = await peers.media.getAsset({ assetId: request.params.assetId, callerUserId: callerOf(request).userId });
      return {
        asset: toAssetDto(found.asset!),
        url: found.downloadUrl ?? null,
        urlExpiresAt: found.downloadExpiresAt?.toISOString() ?? null,
      };
    },
  );
}

import type { mediaV1 } from '@atelier/contracts';
import { MicroBatcher } from '@atelier/batching';
import { AppError, ErrorCode, NotFoundError } from '@atelier/errors';
import { GrpcStatus, type PromiseClient } from '@atelier/grpc';

/** CreateJob's look-up of an input asset: its state now (it may change at any time, so never cached). */
export interface InputAssetLookups {
  /** The asset, or NotFoundError when media has none of that id; media's errors as they come. */
  get(assetId: string): Promise<mediaV1.Asset>;
}

/** The peer does not serve the method (an older media): the status behind the domain error. */
const isUnimplemented = (error: unknown) =>
  error instanceof AppError && (error.cause as { code?: unknown } | undefined)?.code === GrpcStatus.UNIMPLEMENTED;

/**
 * Concurrent creates' input look-ups coalesced into one GetAssetsInternal per batch (one statement
 * in media, one round trip): under load, each create's look-up costs a share of a call instead of
 * a call. A lone create goes out at once; two calls at most run at a time, so that under load
 * the others gather into the next one. Against a media that does not know the batch RPC yet
 * (UNIMPLEMENTED, during a rolling deploy), each id is asked alone with GetAssetInternal.
 */
export function inputAssetLookups(
  media: Pick<PromiseClient<mediaV1.MediaServiceClient>, 'getAssetsInternal' | 'getAssetInternal'>,
  options = { maxBatch: 200, maxConcurrent: 2 },
): InputAssetLookups {
  const one = (assetId: string) =>
    media.getAssetInternal({ assetId, includeDownloadUrl: false }).then(
      (response): mediaV1.Asset | undefined => response.asset,
      (error: unknown) => {
        if (error instanceof AppError && error.code === ErrorCode.NOT_FOUND) return undefined;
        throw error;
      },
    );
  const batches = new MicroBatcher<string, mediaV1.Asset | undefined>(async (ids) => {
    try {
      const { assets } = await media.getAssetsInternal({ assetIds: [...new Set(ids)] });
      const byId = new Map(assets.map((asset) => [asset.id, asset]));
      return ids.map((id) => byId.get(id));
    } catch (error) {
      if (isUnimplemented(error)) return Promise.all(ids.map(one));
      throw error;
    }
  }, options);
  return {
    async get(assetId) {
      const asset = await batches.submit(assetId);
      if (!asset) throw new NotFoundError('asset');
      return asset;
    },
  };
}

import type { mediaV1 } from '@atelier/contracts';
import { NotFoundError } from '@atelier/errors';
import type { Handler } from '@atelier/grpc';
import { requireUserId, requireUuid } from '@atelier/validation';
import { selectAsset, updateAssetDeleted, storageKeyFor, type Asset } from '../db/asset-sql.js';
import type { MediaContext } from '../media-context.js';
import { toAssetMessage } from './asset-mapper.js';

type DeleteAsset = Handler<typeof mediaV1.MediaServiceService.deleteAsset>;

/**
 * Every object an asset may have in the bucket: a completed upload lives at its verified key; its
 * upload key may hold bytes PUT after completion through a still-valid URL (never served).
 */
export function objectKeysOf(asset: Asset): string[] {
  return [...new Set([asset.storageKey, storageKeyFor(asset.id)])];
}

/**
 * Soft delete, then best-effort removal of the object: the row is the truth, so a failed object
 * delete leaves bytes nobody can reach through the API, logged for operators.
 */
export function deleteAsset({ pool, store, logger }: MediaContext): DeleteAsset {
  return async (request) => {
    const id = requireUuid(request.assetId, 'asset_id');
    const owner = request.ownerUserId === undefined ? undefined : requireUserId(request.ownerUserId, 'owner_user_id');
    const asset = await selectAsset(pool, id);
    if (!asset || (owner !== undefined && asset.ownerUserId !== owner)) throw new NotFoundError('asset');
    if (asset.status === 'deleted') return { asset: toAssetMessage(asset) };
    const deleted = (await updateAssetDeleted(pool, id)) ?? (await selectAsset(pool, id));
    await store.deleteMany(objectKeysOf(asset)).catch((error: unknown) => {
      logger.warn({ assetId: id, err: error }, 'object removal failed after soft delete');
    });
    return { asset: toAssetMessage(deleted!) };
  };
}

import type { mediaV1 } from '@atelier/contracts';
import { NotFoundError } from '@atelier/errors';
import type { Handler } from '@atelier/grpc';
import { requireUserId, requireUuid } from '@atelier/validation';
import { selectAsset, updateAssetDeleted, storageKeyFor } from '../db/asset-sql.js';
import type { MediaContext } from '../media-context.js';
import { toAssetMessage } from './asset-mapper.js';

type DeleteAsset = Handler<typeof mediaV1.MediaServiceService.deleteAsset>;

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
    // A completed upload lives at its verified key; its upload key may hold bytes PUT after
    // completion through a still-valid URL (never served): both go.
    const keys = [...new Set([asset.storageKey, storageKeyFor(id)])];
    await store.deleteMany(keys).catch((error: unknown) => {
      logger.warn({ assetId: id, err: error }, 'object removal failed after soft delete');
    });
    return { asset: toAssetMessage(deleted!) };
  };
}

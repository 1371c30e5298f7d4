import type { mediaV1 } from '@atelier/contracts';
import { InvalidArgumentError, NotFoundError } from '@atelier/errors';
import type { Handler } from '@atelier/grpc';
import { requireUserId, requireUuid } from '@atelier/validation';
import { selectAsset, selectAssets, type Asset } from '../db/asset-sql.js';
import type { MediaContext } from '../media-context.js';
import { toAssetMessage } from './asset-mapper.js';

type GetAsset = Handler<typeof mediaV1.MediaServiceService.getAsset>;
type GetAssetInternal = Handler<typeof mediaV1.MediaServiceService.getAssetInternal>;
type GetAssetsInternal = Handler<typeof mediaV1.MediaServiceService.getAssetsInternal>;

/** Ids one GetAssetsInternal may ask for: a batch of creates, not a scan. */
const MAX_IDS_PER_CALL = 500;

/**
 * A short-lived download URL of a ready asset (none for any other status): the one place the
 * owner's reads (GetAsset, ListAssets) sign one. Signing is local (no call to the store) and
 * the store reuses a URL for half its life.
 */
export async function downloadOf(
  { store, downloadUrlTtlSeconds }: Pick<MediaContext, 'store' | 'downloadUrlTtlSeconds'>,
  asset: Asset,
): Promise<{ downloadUrl?: string; downloadExpiresAt?: Date }> {
  if (asset.status !== 'ready') return {};
  const download = await store.presignGet(asset.storageKey, downloadUrlTtlSeconds);
  return { downloadUrl: download.url, downloadExpiresAt: download.expiresAt };
}

/** The caller's own live asset; anything else is NOT_FOUND, so existence never leaks. */
export function getAsset(context: MediaContext): GetAsset {
  return async (request) => {
    const id = requireUuid(request.assetId, 'asset_id');
    const caller = requireUserId(request.callerUserId, 'caller_user_id');
    const asset = await selectAsset(context.pool, id);
    if (!asset || asset.ownerUserId !== caller || asset.status === 'deleted') throw new NotFoundError('asset');
    return { asset: toAssetMessage(asset), ...(await downloadOf(context, asset)) };
  };
}

/** For services: any asset by id, whatever its owner or status; the status tells the caller. */
export function getAssetInternal({ pool, store, downloadUrlTtlSeconds }: MediaContext): GetAssetInternal {
  return async (request) => {
    const id = requireUuid(request.assetId, 'asset_id');
    const asset = await selectAsset(pool, id);
    if (!asset) throw new NotFoundError('asset');
    if (!request.includeDownloadUrl || asset.status !== 'ready') return { asset: toAssetMessage(asset) };
    const download = await store.presignGet(asset.storageKey, downloadUrlTtlSeconds);
    return { asset: toAssetMessage(asset), downloadUrl: download.url, downloadExpiresAt: download.expiresAt };
  };
}

/** For jobs: the assets of many ids in one statement (CreateJob's coalesced input checks); absent ids answer nothing. */
export function getAssetsInternal({ pool }: MediaContext): GetAssetsInternal {
  return async (request) => {
    if (request.assetIds.length > MAX_IDS_PER_CALL) throw new InvalidArgumentError('asset_ids', `at most ${MAX_IDS_PER_CALL} ids per call`);
    const ids = request.assetIds.map((id, i) => requireUuid(id, `asset_ids[${i}]`));
    if (ids.length === 0) return { assets: [] };
    return { assets: (await selectAssets(pool, [...new Set(ids)])).map(toAssetMessage) };
  };
}

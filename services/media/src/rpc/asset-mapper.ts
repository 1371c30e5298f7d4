import type { mediaV1 } from '@atelier/contracts';
import type { Asset } from '../db/asset-sql.js';
import { purposeMessage, statusMessage } from '../domain/asset-rules.js';

export function toAssetMessage(asset: Asset): mediaV1.Asset {
  return {
    id: asset.id,
    ownerUserId: asset.ownerUserId,
    purpose: purposeMessage(asset.purpose),
    contentType: asset.contentType,
    sizeBytes: asset.sizeBytes,
    sha256: asset.sha256 ? Buffer.from(asset.sha256).toString('hex') : undefined,
    width: asset.width ?? undefined,
    height: asset.height ?? undefined,
    status: statusMessage(asset.status),
    createdAt: asset.createdAt,
    readyAt: asset.readyAt ?? undefined,
    deletedAt: asset.deletedAt ?? undefined,
  };
}

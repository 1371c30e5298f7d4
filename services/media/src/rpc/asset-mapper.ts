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
    ...refusalOf(asset),
  };
}

/**
 * Why the last completion was refused: the upload_error column holds `REASON: message`
 * (complete-upload.ts writes it so); a ready asset has none (updateAssetReady clears it).
 */
function refusalOf(asset: Asset): { refusalReason?: string; refusalMessage?: string } {
  if (!asset.uploadError) return {};
  const separator = asset.uploadError.indexOf(': ');
  if (separator < 0) return { refusalReason: 'UPLOAD_REFUSED', refusalMessage: asset.uploadError };
  return { refusalReason: asset.uploadError.slice(0, separator), refusalMessage: asset.uploadError.slice(separator + 2) };
}

import { createHash } from 'node:crypto';
import type { mediaV1 } from '@atelier/contracts';
import { FailedPreconditionError, NotFoundError, isAppError } from '@atelier/errors';
import type { Handler } from '@atelier/grpc';
import { requireUserId, requireUuid } from '@atelier/validation';
import { findAsset, markReady, recordUploadError } from '../db/assets-repository.js';
import { verifyImage } from '../domain/asset-rules.js';
import type { MediaContext } from '../media-context.js';
import { toAssetMessage } from '../mappers.js';

type CompleteUpload = Handler<typeof mediaV1.MediaServiceService.completeUpload>;

/**
 * Step two: the object must exist with the declared size and be a real image within limits.
 * A refusal leaves the asset `uploading` (the client may PUT again while its URL is valid) and
 * records the reason. Completing a ready asset again returns it unchanged.
 */
export function completeUpload({ pool, store }: MediaContext): CompleteUpload {
  return async (request) => {
    const id = requireUuid(request.assetId, 'asset_id');
    const ownerUserId = requireUserId(request.ownerUserId, 'owner_user_id');
    const asset = await findAsset(pool, id);
    if (!asset || asset.ownerUserId !== ownerUserId || asset.status === 'deleted') throw new NotFoundError('asset');
    if (asset.status === 'ready') return { asset: toAssetMessage(asset) };

    try {
      const head = await store.head(asset.storageKey);
      if (!head) throw new FailedPreconditionError('UPLOAD_OBJECT_MISSING', 'no bytes were uploaded for this asset yet');
      if (head.sizeBytes !== asset.sizeBytes) {
        throw new FailedPreconditionError(
          'UPLOAD_SIZE_MISMATCH',
          `the object has ${head.sizeBytes} bytes, ${asset.sizeBytes} were declared`,
        );
      }
      const bytes = await store.getBytes(asset.storageKey);
      const facts = verifyImage(bytes, asset.contentType, asset.sizeBytes);
      const sha256 = createHash('sha256').update(bytes).digest();
      const ready = (await markReady(pool, id, facts, sha256)) ?? (await findAsset(pool, id));
      return { asset: toAssetMessage(ready!) };
    } catch (error) {
      if (isAppError(error) && error.reason?.startsWith('UPLOAD_')) await recordUploadError(pool, id, `${error.reason}: ${error.message}`);
      throw error;
    }
  };
}

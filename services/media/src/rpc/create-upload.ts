import { accountDeletionStarted } from '@atelier/account-deletion';
import type { mediaV1 } from '@atelier/contracts';
import { inTransaction, uuidv7 } from '@atelier/db';
import { AccountDeletedError } from '@atelier/errors';
import type { Handler } from '@atelier/grpc';
import { requireUserId } from '@atelier/validation';
import { MEDIA_ACCOUNT_DELETIONS } from '../db/account-deletion-sql.js';
import { insertUploadingAsset, storageKeyFor } from '../db/asset-sql.js';
import { lockOwnerForUploads, selectUploadUsage } from '../db/upload-usage-sql.js';
import { requireContentType, requireSize, requireUserPurpose } from '../domain/asset-rules.js';
import { checkUploadLimits, DEFAULT_UPLOAD_LIMITS } from '../domain/upload-limits.js';
import type { MediaContext } from '../media-context.js';
import { toAssetMessage } from './asset-mapper.js';

type CreateUpload = Handler<typeof mediaV1.MediaServiceService.createUpload>;

/**
 * Step one of an upload: an `uploading` asset and a presigned PUT bound to type and length. The
 * per-user limits are counted and the row inserted under the user's lock, in one transaction, so
 * that concurrent starts never overshoot them.
 */
export function createUpload({ pool, store, uploadUrlTtlSeconds, uploadLimits = DEFAULT_UPLOAD_LIMITS }: MediaContext): CreateUpload {
  return async (request) => {
    const ownerUserId = requireUserId(request.ownerUserId, 'owner_user_id');
    const purpose = requireUserPurpose(request.purpose);
    const contentType = requireContentType(request.contentType);
    const sizeBytes = requireSize(request.sizeBytes);
    const id = uuidv7();
    const storageKey = storageKeyFor(id);
    const presigned = await store.presignPut(storageKey, contentType, sizeBytes, uploadUrlTtlSeconds);
    const asset = await inTransaction(pool, async (client) => {
      await lockOwnerForUploads(client, ownerUserId);
      if (await accountDeletionStarted(client, MEDIA_ACCOUNT_DELETIONS, ownerUserId)) throw new AccountDeletedError();
      checkUploadLimits(await selectUploadUsage(client, ownerUserId), sizeBytes, uploadLimits, new Date());
      return insertUploadingAsset(client, { id, ownerUserId, purpose, contentType, sizeBytes, storageKey, idempotencyKey: null });
    });
    return {
      asset: toAssetMessage(asset!),
      uploadUrl: presigned.url,
      uploadHeaders: presigned.headers,
      uploadExpiresAt: presigned.expiresAt,
    };
  };
}

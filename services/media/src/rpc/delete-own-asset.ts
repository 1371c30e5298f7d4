import type { mediaV1 } from '@atelier/contracts';
import { FailedPreconditionError, NotFoundError, UnavailableError } from '@atelier/errors';
import type { Handler } from '@atelier/grpc';
import { requireUserId, requireUuid } from '@atelier/validation';
import type { MediaContext } from '../media-context.js';
import { deleteUnlessInUse } from './delete-unless-in-use.js';

type DeleteOwnAsset = Handler<typeof mediaV1.MediaServiceService.deleteOwnAsset>;

/**
 * The owner's delete: the asset's objects and its row go for good (owner-delete-sql.ts has the
 * steps and the one exception, today's uploads kept as tombstones for the upload limit), unless a
 * queued or running job or a published post uses it (delete-unless-in-use.ts: the mark, then the
 * peers' counts).
 *
 * Deleting twice: the second finds no asset and is NOT_FOUND (the API's 404), as for an asset
 * that never existed — existence is never revealed. A delete cut short after the mark leaves the
 * asset `deleting` (listed as such); deleting it again finishes the job.
 */
export function deleteOwnAsset(context: MediaContext): DeleteOwnAsset {
  return async (request) => {
    const id = requireUuid(request.assetId, 'asset_id');
    const owner = requireUserId(request.ownerUserId, 'owner_user_id');
    if (!context.assetUsage)
      throw new UnavailableError('deleting assets is not configured on this media service (JOBS_ADDR, COMMUNITY_ADDR)');
    const outcome = await deleteUnlessInUse(context, context.assetUsage, id, owner);
    if (outcome === 'gone') throw new NotFoundError('asset');
    if (outcome === 'in_use_by_job') {
      throw new FailedPreconditionError(
        'ASSET_IN_USE',
        'a generation that is queued or running uses this image; cancel it or wait until it ends, then delete again',
      );
    }
    if (outcome === 'in_use_by_post') {
      throw new FailedPreconditionError('ASSET_IN_USE', 'a published post shows this image; delete the post first, then delete the image');
    }
    return {};
  };
}

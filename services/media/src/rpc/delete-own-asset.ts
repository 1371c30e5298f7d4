import type { mediaV1 } from '@atelier/contracts';
import { FailedPreconditionError, NotFoundError, UnavailableError, peerFailure } from '@atelier/errors';
import type { Handler } from '@atelier/grpc';
import { requireUserId, requireUuid } from '@atelier/validation';
import type { Asset } from '../db/asset-sql.js';
import { markAssetDeleting, removeDeletingAsset, restoreDeletingAsset } from '../db/owner-delete-sql.js';
import type { MediaContext } from '../media-context.js';
import { objectKeysOf } from './delete-asset.js';

type DeleteOwnAsset = Handler<typeof mediaV1.MediaServiceService.deleteOwnAsset>;

const failedPeer =
  (peer: string) =>
  (error: unknown): never => {
    throw peerFailure(peer, error);
  };

/** The job an ai_output asset is written for: its idempotency key (see 0002-ai-output-by-job). */
const producingJobOf = (asset: Asset) => (asset.purpose === 'ai_output' ? (asset.idempotencyKey ?? undefined) : undefined);

/**
 * The owner's delete: the asset's objects and its row go for good (owner-delete-sql.ts has the
 * steps and the one exception, today's uploads kept as tombstones for the upload limit).
 *
 * The rule against deleting what is in use: first the asset is marked `deleting` (a CAS), and
 * only then are jobs and community asked whether a queued or running job or a published post
 * uses it. From the mark on, CreateJob and CreatePost read the asset as not ready and refuse it,
 * so a use the peers do not report can only come from a create that checked the asset before the
 * mark and commits after the count — milliseconds. Such a job finds no ready input when a worker
 * starts it and fails (INTERNAL_INPUT_UNAVAILABLE) before anything is sent to a provider, so it
 * is never charged. Closing that window too would take jobs re-reading media inside its insert
 * transaction (a peer call under its quota locks) — not worth it for this outcome.
 *
 * Deleting twice: the second finds no asset and is NOT_FOUND (the API's 404), as for an asset
 * that never existed — existence is never revealed. A delete cut short after the mark leaves the
 * asset `deleting` (listed as such); deleting it again finishes the job.
 */
export function deleteOwnAsset({ pool, store, logger, assetUsage }: MediaContext): DeleteOwnAsset {
  return async (request) => {
    const id = requireUuid(request.assetId, 'asset_id');
    const owner = requireUserId(request.ownerUserId, 'owner_user_id');
    if (!assetUsage) throw new UnavailableError('deleting assets is not configured on this media service (JOBS_ADDR, COMMUNITY_ADDR)');
    const asset = await markAssetDeleting(pool, id, owner);
    if (!asset) throw new NotFoundError('asset');

    // A peer that cannot answer leaves the asset as it was: nothing is deleted on a guess.
    const [jobs, posts] = await Promise.all([
      assetUsage.activeJobs(id, owner, producingJobOf(asset)).catch(failedPeer('jobs')),
      assetUsage.publishedPosts(id, owner).catch(failedPeer('community')),
    ]).catch(async (error: unknown) => {
      await restoreDeletingAsset(pool, id);
      throw error;
    });
    if (jobs > 0 || posts > 0) {
      await restoreDeletingAsset(pool, id);
      throw new FailedPreconditionError(
        'ASSET_IN_USE',
        jobs > 0
          ? 'a generation that is queued or running uses this image; cancel it or wait until it ends, then delete again'
          : 'a published post shows this image; delete the post first, then delete the image',
      );
    }

    // The row is the only pointer to the objects: it goes after them, so a failed object delete
    // leaves the asset `deleting` for the client's retry rather than bytes nobody can find.
    await store.deleteMany(objectKeysOf(asset)).catch((error: unknown) => {
      logger.warn({ assetId: id, err: error }, 'object removal failed; the asset stays deleting until asked again');
      throw new UnavailableError('the image could not be removed right now; try again in a moment', { retryAfterSeconds: 1 });
    });
    store.forget(asset.storageKey);
    await removeDeletingAsset(pool, id);
    return {};
  };
}

import { peerFailure, UnavailableError } from '@atelier/errors';
import type { Asset } from '../db/asset-sql.js';
import { markAssetDeleting, removeDeletingAsset, restoreDeletingAsset } from '../db/owner-delete-sql.js';
import type { StoredPurpose } from '../domain/asset-rules.js';
import type { MediaContext } from '../media-context.js';
import type { AssetUsage } from '../peers/asset-usage.js';
import { objectKeysOf } from './delete-asset.js';

/** What became of an asset asked to go: removed, not there to remove, or kept because something uses it. */
export type DeleteOutcome = 'deleted' | 'gone' | 'in_use_by_job' | 'in_use_by_post';

const failedPeer =
  (peer: string) =>
  (error: unknown): never => {
    throw peerFailure(peer, error);
  };

/** The job an ai_output asset is written for: its idempotency key (see 0002-ai-output-by-job). */
const producingJobOf = (asset: Asset) => (asset.purpose === 'ai_output' ? (asset.idempotencyKey ?? undefined) : undefined);

/**
 * Deletes an asset of its owner unless something uses it — the owner's delete and retention's
 * (rpc/delete-own-asset.ts, rpc/delete-expired-input.ts) both. The rule against deleting what is
 * in use: first the asset is marked `deleting` (a CAS), and only then are jobs and community asked
 * whether a queued or running job or a published post uses it. From the mark on, CreateJob and
 * CreatePost read the asset as not ready and refuse it, so a use the peers do not report can only
 * come from a create that checked the asset before the mark and commits after the count —
 * milliseconds. Such a job finds no ready input when a worker starts it and fails
 * (INTERNAL_INPUT_UNAVAILABLE) before anything is sent to a provider, so it is never charged.
 * Closing that window too would take jobs re-reading media inside its insert transaction (a peer
 * call under its quota locks) — not worth it for this outcome.
 *
 * A peer that cannot answer leaves the asset as it was (nothing is deleted on a guess) and throws.
 * A delete cut short after the mark leaves the asset `deleting`; asking again finishes it.
 */
export async function deleteUnlessInUse(
  { pool, store, logger }: Pick<MediaContext, 'pool' | 'store' | 'logger'>,
  assetUsage: AssetUsage,
  id: string,
  owner: string,
  purpose?: StoredPurpose,
): Promise<DeleteOutcome> {
  const asset = await markAssetDeleting(pool, id, owner, purpose);
  if (!asset) return 'gone';

  const [jobs, posts] = await Promise.all([
    assetUsage.activeJobs(id, owner, producingJobOf(asset)).catch(failedPeer('jobs')),
    assetUsage.publishedPosts(id, owner).catch(failedPeer('community')),
  ]).catch(async (error: unknown) => {
    await restoreDeletingAsset(pool, id);
    throw error;
  });
  if (jobs > 0 || posts > 0) {
    await restoreDeletingAsset(pool, id);
    return jobs > 0 ? 'in_use_by_job' : 'in_use_by_post';
  }

  // The row is the only pointer to the objects: it goes after them, so a failed object delete
  // leaves the asset `deleting` for a retry rather than bytes nobody can find.
  await store.deleteMany(objectKeysOf(asset)).catch((error: unknown) => {
    logger.warn({ assetId: id, err: error }, 'object removal failed; the asset stays deleting until asked again');
    throw new UnavailableError('the image could not be removed right now; try again in a moment', { retryAfterSeconds: 1 });
  });
  store.forget(asset.storageKey);
  await removeDeletingAsset(pool, id);
  return 'deleted';
}

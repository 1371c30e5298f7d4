import type { Queryable } from '@atelier/db';

/**
 * Queued or running jobs of `userId` that use an asset: as their input, or — `producingJobId`,
 * the job an ai_output asset is keyed by — as the job still writing it. A job only ever uses its
 * own user's assets (CreateJob checks the owner), so the in-flight index by user
 * (generation_jobs_in_flight_user_idx) holds every candidate: a handful of rows per user.
 *
 * Media's owner delete asks this after marking the asset `deleting`. A create that read the
 * asset before that mark and commits after this count is the one case it cannot see; such a job
 * finds no ready input when a worker starts it and fails (INTERNAL_INPUT_UNAVAILABLE) before
 * anything is sent to a provider (services/media/src/rpc/delete-own-asset.ts says why the window
 * is left open rather than locked).
 */
export async function countActiveJobsUsingAsset(
  db: Queryable,
  userId: string,
  assetId: string,
  producingJobId: string | null,
): Promise<number> {
  const result = await db.query<{ count: number }>({
    name: 'jobs.count_active_using_asset',
    text: `SELECT count(*)::int AS count FROM jobs.generation_jobs
            WHERE user_id = $1 AND status IN ('queued', 'running')
              AND (input_asset_id = $2 OR id = $3)`,
    values: [userId, assetId, producingJobId],
  });
  return result.rows[0]!.count;
}

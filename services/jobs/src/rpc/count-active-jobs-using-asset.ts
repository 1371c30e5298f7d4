import type { jobsExecutionV1 } from '@atelier/contracts';
import type { Handler } from '@atelier/grpc';
import { requireUserId, requireUuid } from '@atelier/validation';
import { countActiveJobsUsingAsset as countSql } from '../db/asset-usage-sql.js';
import type { JobsContext } from '../jobs-context.js';

type CountActiveJobsUsingAsset = Handler<typeof jobsExecutionV1.JobExecutionServiceService.countActiveJobsUsingAsset>;

/** For media's owner delete: the asset may go only when no queued or running job uses it. */
export function countActiveJobsUsingAsset({ pool }: JobsContext): CountActiveJobsUsingAsset {
  return async (request) => {
    const assetId = requireUuid(request.assetId, 'asset_id');
    const userId = requireUserId(request.userId, 'user_id');
    const producingJobId = request.producingJobId ? requireUuid(request.producingJobId, 'producing_job_id') : null;
    return { count: await countSql(pool, userId, assetId, producingJobId) };
  };
}

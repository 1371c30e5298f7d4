import type { jobsV1 } from '@atelier/contracts';
import type { Handler } from '@atelier/grpc';
import { requireUserId, requireUuid } from '@atelier/validation';
import type { JobsContext } from '../jobs-context.js';
import { readOwnJobView } from './user-job-view.js';

type GetJob = Handler<typeof jobsV1.JobsServiceService.getJob>;

export function getJob({ pool }: JobsContext): GetJob {
  return async (request) => {
    const { job } = await readOwnJobView(pool, requireUuid(request.jobId, 'job_id'), requireUserId(request.userId, 'user_id'));
    return { job };
  };
}

import type { jobsV1 } from '@atelier/contracts';
import type { Handler } from '@atelier/grpc';
import { requireUserId, requireUuid } from '@atelier/validation';
import type { JobsContext } from '../jobs-context.js';
import { describeJob } from './user-job-view.js';
import { jobCancellation } from './job-cancellation.js';

type CancelJob = Handler<typeof jobsV1.JobsServiceService.cancelJob>;

/**
 * queued → cancelled at once; running → cancelled at once too, and the worker running it hears
 * of it within a second (the cancel is pushed) and abandons the attempt. A finished job cannot be
 * cancelled, nor a running one of a type that does not allow it.
 */
export function cancelJob(context: JobsContext): CancelJob {
  const cancelAs = jobCancellation(context);
  return async (request) => {
    const jobId = requireUuid(request.jobId, 'job_id');
    const userId = requireUserId(request.userId, 'user_id');
    const job = await cancelAs({ jobId, userId, actor: `user:${userId}` });
    return { job: await describeJob(context.pool, job) };
  };
}

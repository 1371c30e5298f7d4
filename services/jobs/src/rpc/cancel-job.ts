import type { jobsV1 } from '@atelier/contracts';
import { FailedPreconditionError, NotFoundError } from '@atelier/errors';
import type { Handler } from '@atelier/grpc';
import { requireUserId, requireUuid } from '@atelier/validation';
import type { JobsContext } from '../jobs-context.js';
import { describeJob } from './user-job-view.js';
import { announce } from '../background/announce.js';
import { cancel } from '../db/transitions/cancel-sql.js';

type CancelJob = Handler<typeof jobsV1.JobsServiceService.cancelJob>;

/**
 * queued → cancelled at once; running → cancelled at once too, and the worker running it hears
 * of it within a second (the cancel is pushed) and abandons the attempt. A finished job cannot be
 * cancelled, nor a running one of a type that does not allow it.
 */
export function cancelJob(context: JobsContext): CancelJob {
  const nonCancellableTypes = context.registry
    .all()
    .filter((definition) => !definition.cancellable)
    .map((definition) => definition.jobType);
  return async (request) => {
    const jobId = requireUuid(request.jobId, 'job_id');
    const userId = requireUserId(request.userId, 'user_id');
    const result = await cancel(context.pool, { jobId, userId, nonCancellableTypes }, context.outboxSubjects());
    if (!result.changed) {
      const { found } = result;
      if (!found) throw new NotFoundError('job');
      if (found.status === 'running') {
        throw new FailedPreconditionError('JOB_NOT_CANCELLABLE', `a running ${found.jobType} job cannot be cancelled`);
      }
      throw new FailedPreconditionError('JOB_ALREADY_FINISHED', `the job has already ${found.status}`);
    }
    announce(context, 'ended', [result.job]);
    return { job: await describeJob(context.pool, result.job) };
  };
}

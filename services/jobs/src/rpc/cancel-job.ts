import type { jobsV1 } from '@atelier/contracts';
import { FailedPreconditionError } from '@atelier/errors';
import type { Handler } from '@atelier/grpc';
import { requireUserId, requireUuid } from '@atelier/validation';
import { cancelJob as cancelJobRow } from '../db/job-transitions.js';
import type { JobsContext } from '../jobs-context.js';
import { describeJob, findOwnJob } from '../job-view.js';

type CancelJob = Handler<typeof jobsV1.JobsServiceService.cancelJob>;

/**
 * queued → cancelled at once; running → cancelled at once too, and the worker, whose lease is
 * gone, learns it at its next heartbeat and abandons the attempt. A finished job cannot be
 * cancelled. Cancelled jobs give their quota back.
 */
export function cancelJob(context: JobsContext): CancelJob {
  return async (request) => {
    const jobId = requireUuid(request.jobId, 'job_id');
    const userId = requireUserId(request.userId, 'user_id');
    const current = await findOwnJob(context.pool, jobId, userId);
    const definition = context.registry.find(current.job_type);
    if (current.status === 'running' && definition && !definition.cancellable) {
      throw new FailedPreconditionError('JOB_NOT_CANCELLABLE', `a running ${current.job_type} job cannot be cancelled`);
    }
    const cancelled = await cancelJobRow(context.pool, jobId, userId, context.subjects);
    if (!cancelled) {
      const row = await findOwnJob(context.pool, jobId, userId);
      throw new FailedPreconditionError('JOB_ALREADY_FINISHED', `the job has already ${row.status}`);
    }
    context.onOutboxWrite();
    context.watchHub.changed(jobId);
    return { job: await describeJob(context.pool, cancelled) };
  };
}

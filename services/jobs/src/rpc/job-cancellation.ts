import { FailedPreconditionError, NotFoundError } from '@atelier/errors';
import type { JobRow } from '../db/job-row.js';
import { cancel } from '../db/transitions/cancel-sql.js';
import { announce } from '../announce/announce.js';
import type { JobsContext } from '../jobs-context.js';

/**
 * The cancel transition as both APIs use it — a user's (their own jobs) and an operator's (any
 * job): the statement, the refusal from the row it found, the announcement. Answers the cancelled row.
 */
export function jobCancellation(context: JobsContext) {
  const nonCancellableTypes = context.registry
    .all()
    .filter((definition) => !definition.cancellable)
    .map((definition) => definition.jobType);
  return async (request: { jobId: string; userId: string | null; actor: string }): Promise<JobRow> => {
    const result = await cancel(context.pool, { ...request, nonCancellableTypes }, context.outboxSubjects());
    if (!result.changed) {
      const { found } = result;
      if (!found) throw new NotFoundError('job');
      if (found.status === 'running') {
        throw new FailedPreconditionError('JOB_NOT_CANCELLABLE', `a running ${found.jobType} job cannot be cancelled`);
      }
      throw new FailedPreconditionError('JOB_ALREADY_FINISHED', `the job has already ${found.status}`);
    }
    announce(context, 'ended', [result.job]);
    return result.job;
  };
}

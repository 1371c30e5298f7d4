import type { Queryable } from '@atelier/db';
import { FailedPreconditionError, NotFoundError } from '@atelier/errors';
import type { JobRow } from '../db/job-row.js';
import { cancel } from '../db/transitions/cancel-sql.js';
import { announce } from '../announce/announce.js';
import type { JobsContext } from '../jobs-context.js';

/**
 * The cancel transition as both APIs use it — a user's (their own jobs) and an operator's (any
 * job): the statement, the refusal from the row it found, the announcement. Answers the cancelled
 * row. `db` is the pool, or an operator's audited transaction: then `announce: false`, and the
 * caller announces after its commit.
 */
export function jobCancellation(context: JobsContext) {
  const nonCancellableTypes = context.registry
    .all()
    .filter((definition) => !definition.cancellable)
    .map((definition) => definition.jobType);
  return async (
    request: { jobId: string; userId: string | null; actor: string },
    db: Queryable = context.pool,
    { announce: announceNow = true } = {},
  ): Promise<JobRow & { from_status: string }> => {
    const result = await cancel(db, { ...request, nonCancellableTypes }, context.outboxSubjects());
    if (!result.changed) {
      const { found } = result;
      if (!found) throw new NotFoundError('job');
      if (found.status === 'running') {
        throw new FailedPreconditionError('JOB_NOT_CANCELLABLE', `a running ${found.jobType} job cannot be cancelled`);
      }
      throw new FailedPreconditionError('JOB_ALREADY_FINISHED', `the job has already ${found.status}`);
    }
    if (announceNow) announce(context, 'ended', [result.job]);
    return result.job;
  };
}

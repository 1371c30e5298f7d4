import type { jobsExecutionV1 } from '@atelier/contracts';
import { NotFoundError } from '@atelier/errors';
import type { Handler } from '@atelier/grpc';
import { requireUuid } from '@atelier/validation';
import { selectJob } from '../db/job-sql.js';
import { statusMessage } from '../domain/job-state-machine.js';
import type { JobsContext } from '../jobs-context.js';

type GetJobStatus = Handler<typeof jobsExecutionV1.JobExecutionServiceService.getJobStatus>;

/**
 * Only the status and the owner: what media needs to confirm a job ended before deleting its
 * outputs, and webhooks to confirm an event and find whose endpoints it goes to.
 */
export function getJobStatus({ pool }: JobsContext): GetJobStatus {
  return async (request) => {
    const row = await selectJob(pool, requireUuid(request.jobId, 'job_id'));
    if (!row) throw new NotFoundError('job');
    return { status: statusMessage(row.status), userId: row.user_id };
  };
}

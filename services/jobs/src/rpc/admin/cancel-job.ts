import type { jobsAdminV1 } from '@atelier/contracts';
import type { Handler } from '@atelier/grpc';
import { requireUserId, requireUuid } from '@atelier/validation';
import { selectJobEvents } from '../../db/job-sql.js';
import type { JobsContext } from '../../jobs-context.js';
import { jobCancellation } from '../job-cancellation.js';
import { toAdminJobMessage } from '../job-mapper.js';

type AdminCancelJob = Handler<typeof jobsAdminV1.JobsAdminServiceService.cancelJob>;

/**
 * An operator cancels any user's job through the very transition a user's cancel takes (the same
 * refusals, the vendor's prediction cancelled through the outbox), recorded as operator:<id>.
 */
export function adminCancelJob(context: JobsContext): AdminCancelJob {
  const cancelAs = jobCancellation(context);
  return async (request) => {
    const jobId = requireUuid(request.jobId, 'job_id');
    const operatorId = requireUserId(request.operatorId, 'operator_id');
    const job = await cancelAs({ jobId, userId: null, actor: `operator:${operatorId}` });
    return { job: toAdminJobMessage(job, await selectJobEvents(context.pool, [job.id])) };
  };
}

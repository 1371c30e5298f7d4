import type { jobsAdminV1 } from '@atelier/contracts';
import type { Handler } from '@atelier/grpc';
import { auditedChange, requireOperatorActor } from '@atelier/operator-audit';
import { requireUserId, requireUuid } from '@atelier/validation';
import { announce } from '../../announce/announce.js';
import { selectJobEvents } from '../../db/job-sql.js';
import type { JobsContext } from '../../jobs-context.js';
import { jobCancellation } from '../job-cancellation.js';
import { toAdminJobMessage } from '../job-mapper.js';

type AdminCancelJob = Handler<typeof jobsAdminV1.JobsAdminServiceService.cancelJob>;

/**
 * An operator cancels any user's job through the very transition a user's cancel takes (the same
 * refusals, the vendor's prediction cancelled through the outbox), recorded as operator:<id> in
 * the job's history and in the audit log, in the transition's transaction.
 */
export function adminCancelJob(context: JobsContext): AdminCancelJob {
  const cancelAs = jobCancellation(context);
  return async (request) => {
    const jobId = requireUuid(request.jobId, 'job_id');
    const operatorId = requireUserId(request.operatorId, 'operator_id');
    const actor = requireOperatorActor(request.actor);
    const job = await auditedChange(context.pool, 'jobs', { action: 'job.cancel', actor, target: `job:${jobId}` }, async (tx) => {
      const cancelled = await cancelAs({ jobId, userId: null, actor: `operator:${operatorId}` }, tx, { announce: false });
      return { result: cancelled, before: { status: cancelled.from_status }, after: { status: cancelled.status } };
    });
    announce(context, 'ended', [job]);
    return { job: toAdminJobMessage(job, await selectJobEvents(context.pool, [job.id])) };
  };
}

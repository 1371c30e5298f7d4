import type { jobsExecutionV1 } from '@atelier/contracts';
import type { Handler } from '@atelier/grpc';
import { requireText, requireUuid } from '@atelier/validation';
import { releaseJob as releaseJobRow } from '../db/job-transitions.js';
import type { JobsContext } from '../jobs-context.js';
import { toJobMessage } from '../job-mapper.js';
import { leaseRefusal, requireWorkerId } from './lease-refusal.js';

type ReleaseJob = Handler<typeof jobsExecutionV1.JobExecutionServiceService.releaseJob>;

/** A draining worker hands a job back: queued and due at once, the attempt not charged. */
export function releaseJob(context: JobsContext): ReleaseJob {
  return async (request) => {
    const jobId = requireUuid(request.jobId, 'job_id');
    const workerId = requireWorkerId(request.workerId);
    const reason = requireText(request.reason, 'reason', 400, { allowEmpty: true }) || 'worker shutdown';
    const row = await releaseJobRow(context.pool, jobId, workerId, reason, context.subjects);
    if (!row) throw await leaseRefusal(context.pool, jobId, workerId);
    context.onOutboxWrite();
    context.watchHub.changed(jobId);
    return { job: toJobMessage(row) };
  };
}

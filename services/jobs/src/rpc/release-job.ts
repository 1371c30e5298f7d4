import type { jobsExecutionV1 } from '@atelier/contracts';
import type { Handler } from '@atelier/grpc';
import { requireText, requireUuid } from '@atelier/validation';
import type { JobsContext } from '../jobs-context.js';
import { toJobMessage } from './job-mapper.js';
import { announce } from '../announce/announce.js';
import { leaseRefusal } from './lease-refusal.js';
import { release } from '../db/transitions/release-sql.js';
import { requireWorkerId } from './worker-id.js';

type ReleaseJob = Handler<typeof jobsExecutionV1.JobExecutionServiceService.releaseJob>;

/** A draining worker hands a job back: queued and due at once, the attempt not charged. */
export function releaseJob(context: JobsContext): ReleaseJob {
  return async (request) => {
    const jobId = requireUuid(request.jobId, 'job_id');
    const workerId = requireWorkerId(request.workerId);
    const reason = requireText(request.reason, 'reason', 400, { allowEmpty: true }) || 'worker shutdown';
    const result = await release(context.pool, { jobId, workerId, reason }, context.outboxSubjects());
    if (!result.changed) throw leaseRefusal(result.found, workerId);
    announce(context, 'requeued', [result.job]);
    return { job: toJobMessage(result.job) };
  };
}

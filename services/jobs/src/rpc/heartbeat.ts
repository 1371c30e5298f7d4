import { jobsExecutionV1 } from '@atelier/contracts';
import type { Handler } from '@atelier/grpc';
import { requireIntInRange, requireUuid } from '@atelier/validation';
import { findJob } from '../db/job-queries.js';
import { heartbeatJob } from '../db/job-transitions.js';
import type { JobsContext } from '../jobs-context.js';
import { requireWorkerId, stopReasonFor } from './lease-refusal.js';

type Heartbeat = Handler<typeof jobsExecutionV1.JobExecutionServiceService.heartbeat>;
const { HeartbeatDirective, StopReason } = jobsExecutionV1;

/**
 * Extends the lease and records progress, or tells the worker to stop: how a worker whose lease
 * was reaped learns it lost the job, and the backstop of a cancel (which is pushed to workers).
 */
export function heartbeat(context: JobsContext): Heartbeat {
  return async (request) => {
    const jobId = requireUuid(request.jobId, 'job_id');
    const workerId = requireWorkerId(request.workerId);
    const progress = requireIntInRange(request.progress, 'progress', 0, 100);
    const extended = await heartbeatJob(context.pool, jobId, workerId, progress, context.leaseTtlMs);
    if (extended) {
      context.watchHub.changed(jobId);
      return { directive: HeartbeatDirective.CONTINUE, stopReason: StopReason.UNSPECIFIED, leaseExpiresAt: extended.lease_expires_at };
    }
    const row = await findJob(context.pool, jobId);
    return { directive: HeartbeatDirective.STOP, stopReason: stopReasonFor(row?.status), leaseExpiresAt: undefined };
  };
}

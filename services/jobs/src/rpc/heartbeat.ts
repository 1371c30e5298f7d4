import { jobsExecutionV1 } from '@atelier/contracts';
import type { Handler } from '@atelier/grpc';
import { requireIntInRange, requireUuid } from '@atelier/validation';
import type { JobsContext } from '../jobs-context.js';
import { announce } from '../transitions/announce.js';
import { heartbeat as extendLease } from '../transitions/heartbeat.js';
import { stopReasonFor } from '../transitions/lease-refusal.js';
import { requireWorkerId } from './worker-id.js';

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
    const result = await extendLease(context.pool, { jobId, workerId, progress }, context.leaseTtlMs);
    if (!result.extended) {
      return { directive: HeartbeatDirective.STOP, stopReason: stopReasonFor(result.foundStatus), leaseExpiresAt: undefined };
    }
    if (result.advanced) announce(context, 'progressed', [{ id: jobId }]);
    return { directive: HeartbeatDirective.CONTINUE, stopReason: StopReason.UNSPECIFIED, leaseExpiresAt: result.leaseExpiresAt };
  };
}

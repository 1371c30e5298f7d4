import { jobsExecutionV1 } from '@atelier/contracts';
import { InvalidArgumentError } from '@atelier/errors';
import type { Handler } from '@atelier/grpc';
import { requireIntInRange, requireUuid } from '@atelier/validation';
import type { JobsContext } from '../jobs-context.js';
import { announce } from '../announce/announce.js';
import { extendLeases, type HeartbeatRequest } from '../db/transitions/heartbeat-sql.js';
import { stopReasonFor } from './lease-refusal.js';
import { requireWorkerId } from './worker-id.js';

type Heartbeat = Handler<typeof jobsExecutionV1.JobExecutionServiceService.heartbeat>;
type Heartbeats = Handler<typeof jobsExecutionV1.JobExecutionServiceService.heartbeats>;
const { HeartbeatDirective, StopReason } = jobsExecutionV1;

/** More than a worker runs at once by far; a bigger batch is a client bug. */
const MAX_BEATS = 1_000;

/**
 * Extends the lease and records progress, or tells the worker to stop: how a worker whose lease
 * was reaped learns it lost the job, and the backstop of a cancel (which is pushed to workers).
 */
export function heartbeat(context: JobsContext): Heartbeat {
  return async (request) => (await beat(context, [heartbeatRequestOf(request, '')]))[0]!;
}

/** Heartbeat for all the jobs a worker runs, in one statement. */
export function heartbeats(context: JobsContext): Heartbeats {
  return async (request) => {
    if (request.beats.length > MAX_BEATS) throw new InvalidArgumentError('beats', `at most ${MAX_BEATS} per call`);
    const beats = request.beats.map((entry, i) => heartbeatRequestOf(entry, `beats[${i}].`));
    return { results: beats.length === 0 ? [] : await beat(context, beats) };
  };
}

function heartbeatRequestOf(request: jobsExecutionV1.HeartbeatRequest, field: string): HeartbeatRequest {
  return {
    jobId: requireUuid(request.jobId, `${field}job_id`),
    workerId: requireWorkerId(request.workerId),
    progress: requireIntInRange(request.progress, `${field}progress`, 0, 100),
  };
}

async function beat(context: JobsContext, beats: readonly HeartbeatRequest[]): Promise<jobsExecutionV1.HeartbeatResponse[]> {
  const results = await extendLeases(context.pool, beats, context.leaseTtlMs);
  announce(
    context,
    'progressed',
    beats.filter((_, i) => results[i]!.extended && (results[i] as { advanced: boolean }).advanced).map((b) => ({ id: b.jobId })),
  );
  return results.map((result) =>
    result.extended
      ? { directive: HeartbeatDirective.CONTINUE, stopReason: StopReason.UNSPECIFIED, leaseExpiresAt: result.leaseExpiresAt }
      : { directive: HeartbeatDirective.STOP, stopReason: stopReasonFor(result.foundStatus), leaseExpiresAt: undefined },
  );
}

import { jobsExecutionV1 } from '@atelier/contracts';
import { InvalidArgumentError } from '@atelier/errors';
import type { Handler } from '@atelier/grpc';
import { requireUuid } from '@atelier/validation';
import { findJob } from '../db/job-queries.js';
import { isTerminal } from '../domain/job-state-machine.js';
import type { JobsContext } from '../jobs-context.js';
import { toJobMessage } from '../job-mapper.js';
import { requireWorkerId } from './lease-refusal.js';

type ClaimJob = Handler<typeof jobsExecutionV1.JobExecutionServiceService.claimJob>;
type ClaimJobs = Handler<typeof jobsExecutionV1.JobExecutionServiceService.claimJobs>;
const { ClaimOutcome } = jobsExecutionV1;

/**
 * queued → running for the calling worker. Never an error for a job that cannot be claimed: the
 * outcome tells the worker what to do with the message that brought it here (ack a duplicate,
 * terminate a finished or unknown job, nak one that is not due yet).
 */
export function claimJob(context: JobsContext): ClaimJob {
  return async (request, call) => claimOne(context, requireUuid(request.jobId, 'job_id'), requireWorkerId(request.workerId), call.signal);
}

/** ClaimJob for many dispatches at once; the entries still share one statement per batch. */
export function claimJobs(context: JobsContext): ClaimJobs {
  return async (request, call) => {
    if (request.claims.length > 500) throw new InvalidArgumentError('claims', 'at most 500 entries per call');
    const entries = request.claims.map((claim, i) => ({
      jobId: requireUuid(claim.jobId, `claims[${i}].job_id`),
      workerId: requireWorkerId(claim.workerId),
    }));
    return { results: await Promise.all(entries.map((entry) => claimOne(context, entry.jobId, entry.workerId, call.signal))) };
  };
}

async function claimOne(
  context: JobsContext,
  jobId: string,
  workerId: string,
  signal: AbortSignal,
): Promise<jobsExecutionV1.ClaimJobResponse> {
  {
    const row = await context.batches.claim({ jobId, workerId }, signal);
    if (row) {
      context.watchHub.changed(jobId);
      context.metrics.claimed.inc({ job_type: row.job_type });
      const definition = context.registry.find(row.job_type);
      return {
        outcome: ClaimOutcome.CLAIMED,
        claimed: {
          job: toJobMessage(row),
          attempt: row.attempt_count,
          leaseExpiresAt: row.lease_expires_at!,
          heartbeatIntervalMs: Math.floor(context.leaseTtlMs / 3),
          timeoutMs: definition?.timeoutMs ?? 60_000,
          providerRequestId: row.provider_request_id ?? undefined,
          contentSafety: definition?.contentSafety ?? false,
          providerIdempotencyKey: row.provider_request_generation === 0 ? row.id : `${row.id}:${row.provider_request_generation}`,
        },
      };
    }
    const current = await findJob(context.pool, jobId);
    if (!current) return { outcome: ClaimOutcome.NOT_FOUND };
    if (isTerminal(current.status)) return { outcome: ClaimOutcome.TERMINAL };
    if (current.status === 'queued' && current.next_attempt_at.getTime() > Date.now()) {
      return { outcome: ClaimOutcome.NOT_DUE, notBefore: current.next_attempt_at };
    }
    return { outcome: ClaimOutcome.ALREADY_RUNNING };
  }
}

import { jobsExecutionV1 } from '@atelier/contracts';
import { AppError, ErrorCode, InvalidArgumentError } from '@atelier/errors';
import type { Handler } from '@atelier/grpc';
import { requireUuid } from '@atelier/validation';
import { isTerminal } from '../domain/job-state-machine.js';
import type { JobsContext } from '../jobs-context.js';
import { toJobMessage } from './job-mapper.js';
import { announce } from '../announce/announce.js';
import { gatedClaim, isPaused, type ClaimResult } from '../db/transitions/gated-claim.js';
import { PAUSE_REASONS } from './provider-pause-reason.js';
import { requireWorkerId } from './worker-id.js';
import type { JobRow } from '../db/job-row.js';

type ClaimJob = Handler<typeof jobsExecutionV1.JobExecutionServiceService.claimJob>;
type ClaimJobs = Handler<typeof jobsExecutionV1.JobExecutionServiceService.claimJobs>;
const { ClaimOutcome } = jobsExecutionV1;

/**
 * queued → running for the calling worker. Never an error for a job that cannot be claimed: the
 * outcome tells the worker what to do with the message that brought it here (ack a duplicate,
 * terminate a finished or unknown job, nak one that is not due yet). A job past its start deadline
 * is TERMINAL although still queued: it will never start, and the sweep ends it shortly.
 */
export function claimJob(context: JobsContext): ClaimJob {
  return async (request, call) => claimOne(context, requireUuid(request.jobId, 'job_id'), requireWorkerId(request.workerId), call.signal);
}

/**
 * ClaimJob for many dispatches at once, in one statement: the worker coalesced them already, so
 * they are not queued for another batch here. A call whose caller gave up claims nothing (a lease
 * must not start for a worker that stopped waiting for it).
 */
export function claimJobs(context: JobsContext): ClaimJobs {
  return async (request, call) => {
    if (request.claims.length > 500) throw new InvalidArgumentError('claims', 'at most 500 entries per call');
    const entries = request.claims.map((claim, i) => ({
      jobId: requireUuid(claim.jobId, `claims[${i}].job_id`),
      workerId: requireWorkerId(claim.workerId),
    }));
    if (entries.length === 0) return { results: [] };
    if (call.signal.aborted) throw new AppError(ErrorCode.CANCELLED, 'the caller gave up before its claims were made');
    const results = await gatedClaim(context.pool, entries, context.leaseTtlMs);
    announce(
      context,
      'claimed',
      results.flatMap((result) => (result.changed ? [result.job] : [])),
    );
    observeGates(context, results);
    return { results: results.map((result) => claimResponse(context, result)) };
  };
}

async function claimOne(
  context: JobsContext,
  jobId: string,
  workerId: string,
  signal: AbortSignal,
): Promise<jobsExecutionV1.ClaimJobResponse> {
  const result = await context.batches.claim({ jobId, workerId }, signal);
  if (result.changed) announce(context, 'claimed', [result.job]);
  observeGates(context, [result]);
  return claimResponse(context, result);
}

/** Claims a provider's gate held back, by provider and reason; how long the claimed jobs of a provider waited. */
export function observeGates(context: Pick<JobsContext, 'gateMetrics'>, results: readonly ClaimResult[]): void {
  for (const result of results) {
    if (!result.changed || !result.job.provider_code_snapshot) continue;
    const { created_at: created, next_attempt_at: due, started_at: started, provider_code_snapshot: provider } = result.job;
    const from = Math.max(created.getTime(), due.getTime());
    context.gateMetrics.startWait.observe({ provider }, Math.max(0, (started ?? new Date()).getTime() - from) / 1000);
  }
  for (const { paused } of results.filter(isPaused))
    context.gateMetrics.pausedClaims.inc({ provider: paused.provider, reason: paused.reason });
}

function claimResponse(context: JobsContext, result: ClaimResult): jobsExecutionV1.ClaimJobResponse {
  if (isPaused(result)) {
    return { outcome: ClaimOutcome.PROVIDER_PAUSED, notBefore: result.paused.notBefore, pauseReason: PAUSE_REASONS[result.paused.reason] };
  }
  if (!result.changed) {
    const { found } = result;
    if (!found) return { outcome: ClaimOutcome.NOT_FOUND };
    if (isTerminal(found.status) || found.startDeadlinePassed) return { outcome: ClaimOutcome.TERMINAL };
    if (found.status === 'queued' && found.nextAttemptAt.getTime() > Date.now()) {
      return { outcome: ClaimOutcome.NOT_DUE, notBefore: found.nextAttemptAt };
    }
    return { outcome: ClaimOutcome.ALREADY_RUNNING };
  }
  return { outcome: ClaimOutcome.CLAIMED, claimed: claimedJobOf(context, result.job) };
}

/** What a worker needs to run the attempt a claim started (ClaimJobs, or a hand-over to a waiting worker). */
export function claimedJobOf(context: Pick<JobsContext, 'registry' | 'leaseTtlMs'>, row: JobRow): jobsExecutionV1.ClaimedJob {
  const definition = context.registry.find(row.job_type);
  return {
    job: toJobMessage(row),
    attempt: row.attempt_count,
    leaseExpiresAt: row.lease_expires_at!,
    heartbeatIntervalMs: Math.floor(context.leaseTtlMs / 3),
    timeoutMs: definition?.timeoutMs ?? 60_000,
    providerRequestId: row.provider_request_id ?? undefined,
    contentSafety: definition?.contentSafety ?? false,
    providerIdempotencyKey: row.provider_request_generation === 0 ? row.id : `${row.id}:${row.provider_request_generation}`,
    providerRequestGeneration: row.provider_request_generation,
  };
}

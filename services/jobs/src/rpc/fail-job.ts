import { jobsExecutionV1 } from '@atelier/contracts';
import type { Handler } from '@atelier/grpc';
import { requireText, requireUuid } from '@atelier/validation';
import { findJob, listEvents } from '../db/job-queries.js';
import { cancelRunningJob, failJob as failJobRow, requeueJob, type FailureRecord } from '../db/job-transitions.js';
import { requireErrorClass, requireErrorCode } from '../domain/error-class.js';
import { decideFailure } from '../domain/retry-policy.js';
import type { JobsContext } from '../jobs-context.js';
import { toJobMessage } from '../job-mapper.js';
import { leaseRefusal, requireWorkerId } from './lease-refusal.js';

type FailJob = Handler<typeof jobsExecutionV1.JobExecutionServiceService.failJob>;
const { FailOutcome } = jobsExecutionV1;

const DEFAULT_PUBLIC_MESSAGE = 'The generation failed. Please try again.';

/**
 * A worker reports a failed attempt; the jobs service decides: requeue with backoff (a new
 * dispatch, due later) or fail for good, from the error class, the worker's retryable flag and
 * the attempts left (retry-policy.ts). Internal messages are kept for operators only.
 */
export function failJob(context: JobsContext): FailJob {
  return async (request) => {
    const jobId = requireUuid(request.jobId, 'job_id');
    const workerId = requireWorkerId(request.workerId);
    const errorClass = requireErrorClass(request.errorClass);
    const failure: FailureRecord = {
      errorClass,
      errorCode: requireErrorCode(errorClass, request.errorCode),
      publicMessage: requireText(request.publicMessage, 'public_message', 1000, { allowEmpty: true }) || DEFAULT_PUBLIC_MESSAGE,
      internalMessage: requireText(request.internalMessage, 'internal_message', 4000, { allowEmpty: true }),
    };
    const current = await findJob(context.pool, jobId);
    if (!current || current.status !== 'running' || current.lease_owner !== workerId)
      throw await leaseRefusal(context.pool, jobId, workerId);
    const events = await listEvents(context.pool, [jobId]);
    const definition = context.registry.find(current.job_type);
    const decision = definition
      ? decideFailure(
          {
            errorClass,
            retryable: request.retryable,
            attempt: current.attempt_count,
            maxAttempts: current.max_attempts,
            earlierInternalFailures: events.filter((e) => e.error_class === 'internal').length,
          },
          definition,
        )
      : ({ outcome: 'fail' } as const);

    const row =
      decision.outcome === 'requeue'
        ? await requeueJob(context.pool, jobId, workerId, decision.delayMs, failure, request.abandonProviderRequest, context.subjects)
        : decision.outcome === 'cancel'
          ? await cancelRunningJob(context.pool, jobId, workerId, failure, context.subjects)
          : await failJobRow(context.pool, jobId, workerId, failure, context.subjects);
    if (!row) throw await leaseRefusal(context.pool, jobId, workerId);
    context.onOutboxWrite();
    context.watchHub.changed(jobId);
    context.metrics.ended(row);
    return {
      job: toJobMessage(row),
      outcome: row.status === 'queued' ? FailOutcome.REQUEUED : FailOutcome.FAILED,
      nextAttemptAt: row.status === 'queued' ? row.next_attempt_at : undefined,
    };
  };
}

import { jobsExecutionV1 } from '@atelier/contracts';
import type { Handler } from '@atelier/grpc';
import { requireText, requireUuid } from '@atelier/validation';
import { requireErrorClass, requireErrorCode } from '../domain/error-class.js';
import { decideFailure, type FailureDecision } from '../domain/retry-policy.js';
import type { JobsContext } from '../jobs-context.js';
import { toJobMessage } from './job-mapper.js';
import { announce } from '../announce/announce.js';
import { applyFailure, readFailingJob, type FailureRecord } from '../db/transitions/fail-sql.js';
import { holdsLease, leaseRefusal } from './lease-refusal.js';
import { requireWorkerId } from './worker-id.js';

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
    const failing = await readFailingJob(context.pool, jobId);
    if (!holdsLease(failing.found, workerId) || !failing.row) throw leaseRefusal(failing.found, workerId);
    const { row: current } = failing;
    const definition = context.registry.find(current.job_type);
    const decision: FailureDecision = definition
      ? decideFailure(
          {
            errorClass,
            retryable: request.retryable,
            attempt: current.attempt_count,
            maxAttempts: current.max_attempts,
            earlierInternalFailures: failing.internalFailures,
            earlierValidationFailures: failing.validationFailures,
          },
          definition,
        )
      : { outcome: 'fail' };
    const result = await applyFailure(
      context.pool,
      { jobId, workerId, attempt: current.attempt_count, failure, abandonProviderRequest: request.abandonProviderRequest },
      decision,
      context.outboxSubjects(),
    );
    if (!result.changed) throw leaseRefusal(result.found, workerId);
    const row = result.job;
    announce(context, row.status === 'queued' ? 'requeued' : 'ended', [row]);
    return {
      job: toJobMessage(row),
      outcome: row.status === 'queued' ? FailOutcome.REQUEUED : FailOutcome.FAILED,
      nextAttemptAt: row.status === 'queued' ? row.next_attempt_at : undefined,
    };
  };
}

import type { jobsExecutionV1 } from '@atelier/contracts';
import { isUniqueViolation } from '@atelier/db';
import { FailedPreconditionError, InvalidArgumentError } from '@atelier/errors';
import type { Handler } from '@atelier/grpc';
import { requireUuid } from '@atelier/validation';
import type { JobsContext } from '../jobs-context.js';
import { holdsLease, leaseRefusal } from './lease-refusal.js';
import { updateProviderRequest } from '../db/transitions/provider-request-sql.js';
import { requireWorkerId } from './worker-id.js';

type RecordProviderRequest = Handler<typeof jobsExecutionV1.JobExecutionServiceService.recordProviderRequest>;

/**
 * L2 of "never twice": the provider's request id is durable before the worker polls, so any
 * later attempt of this job resumes that request instead of paying for a new one.
 */
export function recordProviderRequest(context: JobsContext): RecordProviderRequest {
  return async (request) => {
    const jobId = requireUuid(request.jobId, 'job_id');
    const workerId = requireWorkerId(request.workerId);
    const providerRequestId = request.providerRequestId.trim();
    if (!providerRequestId || providerRequestId.length > 128 || providerRequestId.includes('\u0000')) {
      throw new InvalidArgumentError('provider_request_id', 'must be 1–128 characters, without NUL');
    }
    const result = await updateProviderRequest(context.pool, { jobId, workerId, providerRequestId }).catch((error: unknown) => {
      if (isUniqueViolation(error, 'generation_jobs_provider_request_key')) {
        throw new FailedPreconditionError('PROVIDER_REQUEST_CONFLICT', 'another job already recorded this provider request id');
      }
      throw error;
    });
    if (result.changed) return {};
    if (holdsLease(result.found, workerId) && result.found.providerRequestId !== providerRequestId) {
      throw new FailedPreconditionError(
        'PROVIDER_REQUEST_CONFLICT',
        'the job already has a different provider request; resume that one instead of submitting again',
      );
    }
    throw leaseRefusal(result.found, workerId);
  };
}

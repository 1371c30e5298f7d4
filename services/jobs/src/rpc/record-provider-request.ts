import type { jobsExecutionV1 } from '@atelier/contracts';
import { isUniqueViolation } from '@atelier/db';
import { FailedPreconditionError, InvalidArgumentError } from '@atelier/errors';
import type { Handler } from '@atelier/grpc';
import { requireUuid } from '@atelier/validation';
import { findJob } from '../db/job-queries.js';
import { recordProviderRequest as recordProviderRequestRow } from '../db/job-transitions.js';
import type { JobsContext } from '../jobs-context.js';
import { leaseRefusal, requireWorkerId } from './lease-refusal.js';

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
    let row;
    try {
      row = await recordProviderRequestRow(context.pool, jobId, workerId, providerRequestId);
    } catch (error) {
      if (isUniqueViolation(error, 'generation_jobs_provider_request_key')) {
        throw new FailedPreconditionError('PROVIDER_REQUEST_CONFLICT', 'another job already recorded this provider request id');
      }
      throw error;
    }
    if (row) return {};
    const current = await findJob(context.pool, jobId);
    if (current?.status === 'running' && current.lease_owner === workerId && current.provider_request_id !== providerRequestId) {
      throw new FailedPreconditionError(
        'PROVIDER_REQUEST_CONFLICT',
        'the job already has a different provider request; resume that one instead of submitting again',
      );
    }
    throw await leaseRefusal(context.pool, jobId, workerId);
  };
}

import type { jobsCredentialsV1 } from '@atelier/contracts';
import { AbortedError, FailedPreconditionError, NotFoundError } from '@atelier/errors';
import type { Handler } from '@atelier/grpc';
import { requireUuid } from '@atelier/validation';
import { EnvelopeError, open } from '../domain/credential-envelope.js';
import { markJobCredentialRefused, selectJobCredential, type JobCredentialRow } from '../db/provider-credentials-sql.js';
import type { JobsContext } from '../jobs-context.js';
import { kekRingOf } from './provider-credentials.js';
import { requireWorkerId } from './worker-id.js';

type Service = typeof jobsCredentialsV1.ProviderCredentialsServiceService;

/**
 * Who may have a job's plain key (docs/credentials.md):
 * - the worker that holds the job's live lease (running, lease_owner = worker, not expired);
 * - to cancel the very prediction the job recorded (cancel_prediction_id): the worker holding
 *   the lease, or any worker (the provider-cancel task's) while the job has ended without its
 *   output (cancelled or failed) less than a day ago — a succeeded job has nothing to cancel, a
 *   queued one's prediction is resumed by its next attempt.
 * Anything else is refused as a call under a lost lease is.
 */
function refusal(job: JobCredentialRow, workerId: string, cancelPredictionId: string | undefined): Error | undefined {
  const holdsLease = job.status === 'running' && job.lease_owner === workerId && job.lease_live;
  if (cancelPredictionId !== undefined) {
    const endedWithoutOutput = (job.status === 'cancelled' || job.status === 'failed') && job.ended_recently;
    if (!endedWithoutOutput && !holdsLease) {
      return new AbortedError(`JOB_${job.status.toUpperCase()}`, `the job is ${job.status}: no cancel of its prediction is due`);
    }
    if (job.provider_request_id !== cancelPredictionId) {
      return new FailedPreconditionError('PROVIDER_REQUEST_MISMATCH', 'the job recorded another provider request');
    }
    return undefined;
  }
  if (holdsLease) return undefined;
  if (job.status === 'running' || job.status === 'queued') {
    return new AbortedError('LEASE_LOST', "this worker does not hold the job's lease");
  }
  return new AbortedError(`JOB_${job.status.toUpperCase()}`, `the job is ${job.status}`);
}

/** The plain user key of a job, to the worker entitled to it (see `refusal`). */
export function getJobCredential(context: JobsContext): Handler<Service['getJobCredential']> {
  return async (request) => {
    const jobId = requireUuid(request.jobId, 'job_id');
    const workerId = requireWorkerId(request.workerId);
    const job = await selectJobCredential(context.pool, jobId);
    if (!job) throw new NotFoundError('job');
    // First, and to anyone allowed to call: it reveals nothing, and tells a cancel which key to use.
    if (job.credential_mode !== 'user_key' || !job.credential) {
      throw new FailedPreconditionError('JOB_USES_PLATFORM_KEY', "the job runs with the platform's key, which jobs does not hold");
    }
    const refused = refusal(job, workerId, request.cancelPredictionId);
    if (refused) throw refused;
    const { credential } = job;
    const named = { params: { label: credential.label, keyHint: credential.key_hint } };
    if (!credential.sealed) throw new FailedPreconditionError('CREDENTIAL_REVOKED', 'its owner deleted this key', named);
    let apiKey: string;
    try {
      apiKey = open(kekRingOf(context), credential.sealed, {
        credentialId: credential.id,
        userId: credential.user_id,
        providerCode: credential.provider_code,
      });
    } catch (error) {
      if (!(error instanceof EnvelopeError)) throw error;
      context.logger.error(
        { jobId, credentialId: credential.id, kekId: credential.sealed.kekId, err: error },
        'a stored vendor key does not open',
      );
      throw new FailedPreconditionError('CREDENTIAL_UNREADABLE', 'the stored key cannot be opened', named);
    }
    return {
      credentialId: credential.id,
      providerCode: credential.provider_code,
      apiKey,
      label: credential.label,
      keyHint: credential.key_hint,
    };
  };
}

/** The vendor refused the job's user key: noted on the credential (its owner sees when). */
export function reportCredentialRefused(context: JobsContext): Handler<Service['reportCredentialRefused']> {
  return async (request) => {
    const jobId = requireUuid(request.jobId, 'job_id');
    const workerId = requireWorkerId(request.workerId);
    if (!(await markJobCredentialRefused(context.pool, jobId, workerId))) {
      throw new AbortedError('LEASE_LOST', 'this worker does not hold the lease of a user-key job with this id');
    }
    return {};
  };
}

import { AppError, ErrorCode } from '@atelier/errors';
import type { Logger } from '@atelier/logging';
import { jobsExecutionV1 } from '@atelier/contracts';
import { retryInAttempt } from '../domain/attempt-retry.js';
import { JobFailure } from '../domain/job-failure.js';
import type { JobCredential, ProviderClients } from '../peers/provider/provider-clients.js';

/** How the user is told which of their keys the vendor refused (or that it is gone): by label and hint. */
function named(label: string | number | undefined, keyHint: string | number | undefined): string {
  return label === undefined ? 'your vendor key' : `your vendor key "${label}" (…${keyHint ?? '????'})`;
}

/**
 * The credential an attempt runs with: the platform's key, or — for a job created with a key of
 * the user's own — that key, from jobs (which hands it only to the worker holding the lease). A
 * key its owner deleted, or that cannot be opened, fails the job for good (CREDENTIAL_*); a lost
 * lease is passed on as jobs said it (the runner stops); jobs briefly away is waited for.
 */
export async function resolveJobCredential(
  clients: ProviderClients,
  job: Pick<jobsExecutionV1.ClaimedJob, 'job'>['job'] & {},
  signal: AbortSignal,
  logger: Logger,
): Promise<JobCredential> {
  if (job.credentialMode !== 'user_key') return clients.platformCredential();
  try {
    return await retryInAttempt('read the job credential', () => clients.userCredential(job.id, signal), signal, logger);
  } catch (error) {
    if (error instanceof AppError && error.code === ErrorCode.FAILED_PRECONDITION) {
      const who = named(error.params?.label, error.params?.keyHint);
      if (error.reason === 'CREDENTIAL_REVOKED') {
        throw JobFailure.credential(
          'CREDENTIAL_REVOKED',
          `the job's credential ${job.credentialId} was deleted`,
          `${capital(who)} was deleted.`,
        );
      }
      if (error.reason === 'CREDENTIAL_UNREADABLE') {
        throw JobFailure.credential(
          'CREDENTIAL_UNREADABLE',
          `the job's credential ${job.credentialId} does not open`,
          `${capital(who)} cannot be used; add it again.`,
        );
      }
    }
    throw error;
  }
}

/**
 * A vendor's refusal (401/403) of a user's own key: recorded on the key (its owner sees when) and
 * told to the user naming the key; final, as every CREDENTIAL_* failure. The platform key's
 * refusal keeps its operator-facing detail and the user's generic message.
 */
export async function credentialRefusal(
  error: unknown,
  credential: JobCredential,
  jobId: string,
  clients: ProviderClients,
  logger: Logger,
): Promise<unknown> {
  if (!(error instanceof JobFailure) || error.errorClass !== jobsExecutionV1.ErrorClass.CREDENTIAL || credential.mode !== 'user_key')
    return error;
  await clients
    .reportRefused(jobId)
    .catch((reportError: unknown) => logger.warn({ jobId, err: reportError }, 'the refused key could not be recorded'));
  return JobFailure.credential(
    error.code,
    `${error.message} (user credential ${credential.id})`,
    `The image service refused ${named(credential.label, credential.keyHint)}. Check the key, or delete it and add it again.`,
  );
}

function capital(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

import { jobsExecutionV1 } from '@atelier/contracts';
import { JobFailure } from '../domain/job-failure.js';
import { ProviderFailure } from '../peers/provider/provider-failure.js';

const { ErrorClass } = jobsExecutionV1;

/**
 * What a vendor's failure is for the job: the JobFailure of its class, with its code, detail and
 * flags (transient, Retry-After, the prediction given up). Any other error passes unchanged.
 */
export function jobFailureOf(error: unknown): unknown {
  if (!(error instanceof ProviderFailure)) return error;
  const { code, message } = error;
  const options = {
    cause: error.cause,
    transient: error.transient,
    retryAfterMs: error.retryAfterMs,
    abandonsPrediction: error.abandonsPrediction,
  };
  switch (error.errorClass) {
    case ErrorClass.PROVIDER:
      return JobFailure.provider(code, message, options);
    case ErrorClass.VALIDATION:
      return JobFailure.validation(code, message);
    case ErrorClass.CONTENT_SAFETY:
      return JobFailure.contentSafety(code, message);
    case ErrorClass.CREDENTIAL:
      return JobFailure.credential(code, message);
    default:
      return JobFailure.internal(code, message, options);
  }
}

/** A call to the vendor whose failure is thrown as the job's (jobFailureOf): what retryInAttempt and the attempt read. */
export function asJobFailures<T>(call: () => Promise<T>): () => Promise<T> {
  return () =>
    call().catch((error: unknown) => {
      throw jobFailureOf(error);
    });
}

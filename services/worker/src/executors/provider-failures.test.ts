import { describe, expect, it } from 'vitest';
import { jobsExecutionV1 } from '@atelier/contracts';
import { JobFailure } from '../domain/job-failure.js';
import { ProviderFailure } from '../peers/provider/provider-failure.js';
import { asJobFailures, jobFailureOf } from './provider-failures.js';

const { ErrorClass } = jobsExecutionV1;

describe('provider failures - what a vendor failure is for the job', () => {
  it.each([
    [ProviderFailure.provider('PROVIDER_UNAVAILABLE', 'd', { transient: true, retryAfterMs: 2_000 }), ErrorClass.PROVIDER, true],
    [ProviderFailure.validation('VALIDATION_OUTPUT_TOO_LARGE', 'd'), ErrorClass.VALIDATION, true],
    [ProviderFailure.contentSafety('CONTENT_SAFETY_REJECTED', 'd'), ErrorClass.CONTENT_SAFETY, false],
    [ProviderFailure.credential('CREDENTIAL_INVALID', 'd'), ErrorClass.CREDENTIAL, false],
    [ProviderFailure.internal('INTERNAL_PROVIDER_REQUEST_REJECTED', 'd'), ErrorClass.INTERNAL, true],
  ])('%s becomes the JobFailure of its class, with its code, detail and flags', (failure, errorClass, retryable) => {
    const mapped = jobFailureOf(failure);
    expect(mapped).toBeInstanceOf(JobFailure);
    expect(mapped).toMatchObject({
      errorClass,
      code: failure.code,
      message: failure.message,
      retryable,
      transient: failure.transient,
      retryAfterMs: failure.retryAfterMs,
      abandonsPrediction: failure.abandonsPrediction,
    });
  });

  it('leaves any other error as it is (an abort, a peer error, a JobFailure)', async () => {
    const abort = new DOMException('aborted', 'AbortError');
    expect(jobFailureOf(abort)).toBe(abort);
    const already = JobFailure.timeout('slow');
    expect(jobFailureOf(already)).toBe(already);
    await expect(
      asJobFailures(() => Promise.reject(ProviderFailure.provider('PROVIDER_PREDICTION_LOST', 'gone')))(),
    ).rejects.toBeInstanceOf(JobFailure);
  });
});

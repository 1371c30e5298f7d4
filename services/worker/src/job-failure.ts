import { jobsExecutionV1 } from '@atelier/contracts';

const { ErrorClass } = jobsExecutionV1;

/**
 * A classified failure of one attempt (SPEC §5). The jobs service turns it into requeue or fail;
 * the public message is safe to show users, the internal one is for operators.
 */
export class JobFailure extends Error {
  override name = 'JobFailure';

  constructor(
    readonly errorClass: jobsExecutionV1.ErrorClass,
    readonly code: string,
    readonly publicMessage: string,
    internalMessage: string,
    readonly retryable: boolean,
    options: { cause?: unknown } = {},
  ) {
    super(internalMessage, options);
  }

  static provider(code: string, internal: string, retryable = true, cause?: unknown): JobFailure {
    return new JobFailure(ErrorClass.PROVIDER, code, 'The image service had a problem. We will try again.', internal, retryable, { cause });
  }

  static validation(code: string, internal: string): JobFailure {
    return new JobFailure(ErrorClass.VALIDATION, code, 'The generated image was not usable. We will try again.', internal, true);
  }

  static contentSafety(code: string, internal: string): JobFailure {
    return new JobFailure(ErrorClass.CONTENT_SAFETY, code, 'This request was refused by the content policy.', internal, false);
  }

  static credential(code: string, internal: string): JobFailure {
    return new JobFailure(ErrorClass.CREDENTIAL, code, 'The image service is not available right now.', internal, false);
  }

  static timeout(internal: string): JobFailure {
    return new JobFailure(ErrorClass.TIMEOUT, 'TIMEOUT', 'The generation took too long.', internal, true);
  }

  static internal(code: string, internal: string, cause?: unknown): JobFailure {
    return new JobFailure(ErrorClass.INTERNAL, code, 'Something went wrong on our side. We will try again.', internal, true, { cause });
  }
}

/** Anything that is not already classified is our own bug or an unexpected state. */
export function classify(error: unknown): JobFailure {
  if (error instanceof JobFailure) return error;
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return JobFailure.internal('INTERNAL_UNEXPECTED', message, error);
}

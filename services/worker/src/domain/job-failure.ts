import { jobsExecutionV1 } from '@atelier/contracts';

const { ErrorClass } = jobsExecutionV1;

export interface JobFailureOptions {
  cause?: unknown;
  /**
   * A passing fault (a vendor 5xx, 429, reset or timeout; a peer that is briefly unreachable):
   * retried inside the attempt while its time lasts, never reported as the attempt's failure.
   */
  transient?: boolean;
  /** The vendor asked to be called again no sooner than this (its Retry-After). */
  retryAfterMs?: number;
  /**
   * The provider request cannot give this job its output any more (the vendor failed, cancelled
   * or lost it, or its output is unusable): the next attempt submits a new one, and pays again.
   */
  abandonsPrediction?: boolean;
}

/**
 * A classified failure of one attempt (SPEC §5). The jobs service turns it into requeue or fail,
 * so the public message says what happened and never promises a retry: whether there is one is
 * not the worker's to say. The internal message is for operators.
 */
export class JobFailure extends Error {
  override name = 'JobFailure';
  readonly transient: boolean;
  readonly retryAfterMs: number | undefined;
  readonly abandonsPrediction: boolean;

  constructor(
    readonly errorClass: jobsExecutionV1.ErrorClass,
    readonly code: string,
    readonly publicMessage: string,
    internalMessage: string,
    readonly retryable: boolean,
    options: JobFailureOptions = {},
  ) {
    super(internalMessage, { cause: options.cause });
    this.transient = options.transient ?? false;
    this.retryAfterMs = options.retryAfterMs;
    this.abandonsPrediction = options.abandonsPrediction ?? false;
  }

  static provider(code: string, internal: string, options: JobFailureOptions = {}): JobFailure {
    return new JobFailure(ErrorClass.PROVIDER, code, 'The image service could not make this image.', internal, true, options);
  }

  static validation(code: string, internal: string): JobFailure {
    return new JobFailure(ErrorClass.VALIDATION, code, 'The image service returned an image we could not use.', internal, true, {
      abandonsPrediction: true,
    });
  }

  static contentSafety(code: string, internal: string): JobFailure {
    return new JobFailure(ErrorClass.CONTENT_SAFETY, code, 'This request was refused by the content policy.', internal, false, {
      abandonsPrediction: true,
    });
  }

  /** `publicMessage`: what the user is told; a refused key of the user's own is named (label and hint, never the key). */
  static credential(code: string, internal: string, publicMessage = 'The image service is not available right now.'): JobFailure {
    return new JobFailure(ErrorClass.CREDENTIAL, code, publicMessage, internal, false);
  }

  static timeout(internal: string): JobFailure {
    return new JobFailure(ErrorClass.TIMEOUT, 'TIMEOUT', 'The generation took too long.', internal, true);
  }

  static internal(code: string, internal: string, options: JobFailureOptions = {}): JobFailure {
    return new JobFailure(ErrorClass.INTERNAL, code, 'Something went wrong on our side.', internal, true, options);
  }
}

/** Anything that is not already classified is our own bug or an unexpected state. */
export function classify(error: unknown): JobFailure {
  if (error instanceof JobFailure) return error;
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return JobFailure.internal('INTERNAL_UNEXPECTED', message, { cause: error });
}

/** A failure worth trying again inside the attempt (see JobFailureOptions.transient). */
export function isTransientFailure(error: unknown): boolean {
  return error instanceof JobFailure && error.transient;
}

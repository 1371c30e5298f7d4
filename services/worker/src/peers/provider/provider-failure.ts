import { jobsExecutionV1 } from '@atelier/contracts';

const { ErrorClass } = jobsExecutionV1;

export interface ProviderFailureOptions {
  cause?: unknown;
  /** A passing fault (a 5xx, 429, reset or timeout): worth trying again. */
  transient?: boolean;
  /** The vendor asked to be called again no sooner than this (its Retry-After). */
  retryAfterMs?: number;
  /** The prediction cannot give its output any more (the vendor failed, cancelled or lost it, or its output is unusable). */
  abandonsPrediction?: boolean;
  /** The vendor's HTTP status, when it answered one (the usage ledger records it). */
  httpStatus?: number;
}

/**
 * What went wrong with a call to the vendor, classified in the contract's error classes: the
 * client's account of the vendor. What it means for the job — its public message, whether another
 * attempt may follow — is the attempt's to say (executors/provider-failures.ts makes a JobFailure of it).
 */
export class ProviderFailure extends Error {
  override name = 'ProviderFailure';
  readonly transient: boolean;
  readonly retryAfterMs: number | undefined;
  readonly abandonsPrediction: boolean;
  readonly httpStatus: number | undefined;

  constructor(
    readonly errorClass: jobsExecutionV1.ErrorClass,
    readonly code: string,
    message: string,
    options: ProviderFailureOptions = {},
  ) {
    super(message, { cause: options.cause });
    this.transient = options.transient ?? false;
    this.retryAfterMs = options.retryAfterMs;
    this.abandonsPrediction = options.abandonsPrediction ?? false;
    this.httpStatus = options.httpStatus;
  }

  /** The vendor failed, was unavailable or lost the prediction. */
  static provider(code: string, message: string, options: ProviderFailureOptions = {}): ProviderFailure {
    return new ProviderFailure(ErrorClass.PROVIDER, code, message, options);
  }

  /** The vendor's output cannot be used: the prediction is given up. */
  static validation(code: string, message: string): ProviderFailure {
    return new ProviderFailure(ErrorClass.VALIDATION, code, message, { abandonsPrediction: true });
  }

  /** The vendor's content policy refused the request. */
  static contentSafety(code: string, message: string): ProviderFailure {
    return new ProviderFailure(ErrorClass.CONTENT_SAFETY, code, message, { abandonsPrediction: true });
  }

  /** The vendor refused our credentials. */
  static credential(code: string, message: string, options: ProviderFailureOptions = {}): ProviderFailure {
    return new ProviderFailure(ErrorClass.CREDENTIAL, code, message, options);
  }

  /** The vendor refused a request of ours as malformed: our fault. */
  static internal(code: string, message: string, options: ProviderFailureOptions = {}): ProviderFailure {
    return new ProviderFailure(ErrorClass.INTERNAL, code, message, options);
  }
}

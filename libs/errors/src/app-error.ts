/** Canonical error codes. They mirror gRPC's canonical codes, never HTTP numbers. */
export const ErrorCode = {
  INVALID_ARGUMENT: 'INVALID_ARGUMENT',
  NOT_FOUND: 'NOT_FOUND',
  ALREADY_EXISTS: 'ALREADY_EXISTS',
  FAILED_PRECONDITION: 'FAILED_PRECONDITION',
  RESOURCE_EXHAUSTED: 'RESOURCE_EXHAUSTED',
  ABORTED: 'ABORTED',
  PERMISSION_DENIED: 'PERMISSION_DENIED',
  UNAUTHENTICATED: 'UNAUTHENTICATED',
  UNAVAILABLE: 'UNAVAILABLE',
  DEADLINE_EXCEEDED: 'DEADLINE_EXCEEDED',
  CANCELLED: 'CANCELLED',
  INTERNAL: 'INTERNAL',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export interface AppErrorOptions {
  /** Stable machine-readable reason, UPPER_SNAKE_CASE (e.g. `MODEL_DISABLED`). */
  reason?: string;
  /** The request field at fault, in the contract's snake_case spelling. */
  field?: string;
  /** Whole seconds after which a refused call may succeed (quotas). */
  retryAfterSeconds?: number;
  /**
   * The values the message was made from (`{ limit: 20 }`), by the names the message catalogs'
   * placeholders use: a caller that renders the reason in another language fills them in.
   */
  params?: Readonly<Record<string, string | number>>;
  cause?: unknown;
}

/** An error a caller can act on. Anything that is not an AppError is treated as a bug. */
export class AppError extends Error {
  override name = 'AppError';
  readonly code: ErrorCode;
  readonly reason: string | undefined;
  readonly field: string | undefined;
  readonly retryAfterSeconds: number | undefined;
  readonly params: Readonly<Record<string, string | number>> | undefined;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.reason = options.reason;
    this.field = options.field;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.params = options.params;
  }
}

/** A request field is missing, malformed or out of range. */
export class InvalidArgumentError extends AppError {
  override name = 'InvalidArgumentError';
  constructor(field: string, message: string, options: Omit<AppErrorOptions, 'field'> = {}) {
    super(ErrorCode.INVALID_ARGUMENT, `${field}: ${message}`, { reason: 'INVALID_ARGUMENT', ...options, field });
  }
}

/** The entity does not exist, or the caller may not know that it does. */
export class NotFoundError extends AppError {
  override name = 'NotFoundError';
  /** @param entity a lower-case noun, e.g. "model"; the reason becomes MODEL_NOT_FOUND. */
  constructor(entity: string, options: AppErrorOptions = {}) {
    super(ErrorCode.NOT_FOUND, `${entity} not found`, {
      reason: `${entity.toUpperCase().replace(/[^A-Z0-9]+/g, '_')}_NOT_FOUND`,
      ...options,
    });
  }
}

export class AlreadyExistsError extends AppError {
  override name = 'AlreadyExistsError';
  constructor(reason: string, message: string, options: Omit<AppErrorOptions, 'reason'> = {}) {
    super(ErrorCode.ALREADY_EXISTS, message, { ...options, reason });
  }
}

/** The request is valid but the system is not in a state that allows it (a business rule). */
export class FailedPreconditionError extends AppError {
  override name = 'FailedPreconditionError';
  constructor(reason: string, message: string, options: Omit<AppErrorOptions, 'reason'> = {}) {
    super(ErrorCode.FAILED_PRECONDITION, message, { ...options, reason });
  }
}

/** A quota or rate limit refused the call; retryAfterSeconds says when to try again. */
export class ResourceExhaustedError extends AppError {
  override name = 'ResourceExhaustedError';
  constructor(reason: string, message: string, retryAfterSeconds: number, options: AppErrorOptions = {}) {
    super(ErrorCode.RESOURCE_EXHAUSTED, message, { ...options, reason, retryAfterSeconds });
  }
}

/** A concurrency conflict (stale version, lost lease): re-read and decide again. */
export class AbortedError extends AppError {
  override name = 'AbortedError';
  constructor(reason: string, message: string, options: Omit<AppErrorOptions, 'reason'> = {}) {
    super(ErrorCode.ABORTED, message, { ...options, reason });
  }
}

/** A dependency is down; the same call may succeed later. */
export class UnavailableError extends AppError {
  override name = 'UnavailableError';
  constructor(message: string, options: AppErrorOptions = {}) {
    super(ErrorCode.UNAVAILABLE, message, { reason: 'UNAVAILABLE', ...options });
  }
}

/** Something that should not happen happened; the message is for operators, not users. */
export class InternalError extends AppError {
  override name = 'InternalError';
  constructor(message: string, options: AppErrorOptions = {}) {
    super(ErrorCode.INTERNAL, message, { reason: 'INTERNAL', ...options });
  }
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}

/** The codes that mean "not now": the same call may succeed later (a peer down, or too slow). */
const TRANSIENT_CODES: ReadonlySet<ErrorCode> = new Set([ErrorCode.UNAVAILABLE, ErrorCode.DEADLINE_EXCEEDED]);

/**
 * A refusal worth trying again after a pause: the callee was unreachable or did not answer in
 * time. Everything else (a broken rule, a missing entity, a bug) fails the same way again.
 */
export function isTransientError(error: unknown): boolean {
  return error instanceof AppError && TRANSIENT_CODES.has(error.code);
}

/**
 * A failed call to a peer service, as the caller's own answer: a peer that was unreachable or
 * too slow is UNAVAILABLE ("the media service is unavailable; try again shortly"), the client's
 * cue to retry; anything else is an INTERNAL error of ours. Refusals the caller expects (a
 * NOT_FOUND it turns into its own answer) are handled before this.
 */
export function peerFailure(peer: string, error: unknown): AppError {
  if (isTransientError(error)) return new UnavailableError(`the ${peer} service is unavailable; try again shortly`, { cause: error });
  return new InternalError(`${peer} lookup failed`, { cause: error });
}

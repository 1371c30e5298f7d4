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

/** The same two as gRPC numbers them (14, 4), on a grpc-js ServiceError not yet made an AppError. */
const TRANSIENT_GRPC_STATUSES: ReadonlySet<number> = new Set([14, 4]);

/**
 * Node's and undici's codes of a connection refused, reset, cut or timed out, or a host not
 * reachable or not resolvable right now: another try, a moment later, may find the peer.
 */
const TRANSIENT_NETWORK_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/**
 * Errors that are transient by what they are: nats.js's connection lost, closed or draining, and
 * its request or publish nobody answered in time (RequestError wraps a timeout or "no responders");
 * `TimeoutError` is also what AbortSignal.timeout aborts with.
 */
const TRANSIENT_ERROR_NAMES: ReadonlySet<string> = new Set([
  'TimeoutError',
  'ConnectionError',
  'ClosedConnectionError',
  'DrainingConnectionError',
  'RequestError',
]);

/** Postgres: the server is shutting down or starting (57P01–57P03), has no connection left (53300), or the connection failed (class 08). */
const CONNECTION_LOSS_SQL_STATES: ReadonlySet<string> = new Set(['57P01', '57P02', '57P03', '53300']);

/**
 * Errors that only wrap another and say nothing of their own: fetch's `TypeError: fetch failed`
 * (the socket's error is its cause), a multi-address connect's AggregateError, a plain Error.
 * A classifying error (an AppError, the worker's JobFailure …) is never looked through.
 */
const WRAPPER_NAMES: ReadonlySet<string> = new Set(['Error', 'TypeError', 'AggregateError']);

/** Whether a Node or undici error code is a network failure worth trying again (ECONNRESET …). */
export function isTransientNetworkCode(code: string): boolean {
  return TRANSIENT_NETWORK_CODES.has(code);
}

/** Whether a Postgres SQLSTATE says the connection was lost or refused: another connection may work. */
export function isConnectionLossSqlState(state: string): boolean {
  return CONNECTION_LOSS_SQL_STATES.has(state) || /^08[0-9A-Z]{3}$/.test(state);
}

function isGrpcServiceError(error: object): error is { code: number; details: string; metadata: object } {
  const { code, details, metadata } = error as { code?: unknown; details?: unknown; metadata?: unknown };
  return typeof code === 'number' && typeof details === 'string' && typeof metadata === 'object' && metadata !== null;
}

/**
 * A failure worth trying again after a pause: the callee was unreachable or did not answer in
 * time, and the same call may succeed later. Everything else (a broken rule, a missing entity, a
 * refusal, a bug) fails the same way again. The one classification every caller uses:
 *   - an AppError by its code: UNAVAILABLE or DEADLINE_EXCEEDED (what gRPC peers, the database
 *     pool and the libs answer), and a grpc-js error with those statuses;
 *   - a network failure by Node's or undici's code (ECONNREFUSED, ECONNRESET, UND_ERR_SOCKET …);
 *   - a NATS connection lost, closed or draining, or a request that timed out;
 *   - a Postgres connection lost or refused (SQLSTATE class 08, 57P01–57P03, 53300).
 * An error that only wraps another (fetch's TypeError) is judged by what it wraps.
 * A vendor's HTTP answer is judged by isTransientHttpStatus.
 */
export function isTransientError(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth += 1) {
    if (current instanceof AppError) return TRANSIENT_CODES.has(current.code);
    if (isGrpcServiceError(current)) return TRANSIENT_GRPC_STATUSES.has(current.code);
    const { name, code, cause, errors } = current as { name?: unknown; code?: unknown; cause?: unknown; errors?: unknown };
    if (typeof name === 'string' && TRANSIENT_ERROR_NAMES.has(name)) return true;
    if (typeof code === 'string' && (isTransientNetworkCode(code) || isConnectionLossSqlState(code))) return true;
    if (typeof name !== 'string' || !WRAPPER_NAMES.has(name)) return false;
    // A connect to every address of a name failed: the peer is away if one of them said so.
    if (Array.isArray(errors) && errors.some(isTransientError)) return true;
    current = cause;
  }
  return false;
}

/**
 * Whether a vendor's HTTP answer is passing trouble worth trying again: 408 (it timed the request
 * out), 429 (too many requests; its Retry-After says when) and any 5xx. Every other status is an
 * answer the same request gets again.
 */
export function isTransientHttpStatus(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status <= 599);
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

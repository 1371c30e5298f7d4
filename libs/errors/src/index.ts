/**
 * Domain errors with one shape: a canonical code (what kind of refusal), an optional stable
 * reason (which rule, e.g. IDEMPOTENCY_PAYLOAD_MISMATCH), an optional field (which input) and a
 * message a user can act on. Transports translate them in one place each: `@atelier/grpc` to
 * gRPC status, the gateway to HTTP.
 */
export {
  ErrorCode,
  AppError,
  InvalidArgumentError,
  NotFoundError,
  AlreadyExistsError,
  FailedPreconditionError,
  ResourceExhaustedError,
  AbortedError,
  UnavailableError,
  InternalError,
  isAppError,
  isTransientError,
  isTransientHttpStatus,
  isTransientNetworkCode,
  isConnectionLossSqlState,
  peerFailure,
  type AppErrorOptions,
} from './app-error.js';
export { nextUtcDay, nextUtcMonth, secondsToNextUtcDay, secondsToNextUtcMonth } from './retry-after.js';
export { AccountDeletedError } from './account-deleted.js';

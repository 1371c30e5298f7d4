import { status as GrpcStatus } from '@grpc/grpc-js';
import { ErrorCode } from '@atelier/errors';

/** The one table between domain error codes and gRPC status codes, both directions. */
export const GRPC_STATUS_BY_ERROR_CODE: Readonly<Record<ErrorCode, GrpcStatus>> = {
  [ErrorCode.INVALID_ARGUMENT]: GrpcStatus.INVALID_ARGUMENT,
  [ErrorCode.NOT_FOUND]: GrpcStatus.NOT_FOUND,
  [ErrorCode.ALREADY_EXISTS]: GrpcStatus.ALREADY_EXISTS,
  [ErrorCode.FAILED_PRECONDITION]: GrpcStatus.FAILED_PRECONDITION,
  [ErrorCode.RESOURCE_EXHAUSTED]: GrpcStatus.RESOURCE_EXHAUSTED,
  [ErrorCode.ABORTED]: GrpcStatus.ABORTED,
  [ErrorCode.PERMISSION_DENIED]: GrpcStatus.PERMISSION_DENIED,
  [ErrorCode.UNAUTHENTICATED]: GrpcStatus.UNAUTHENTICATED,
  [ErrorCode.UNAVAILABLE]: GrpcStatus.UNAVAILABLE,
  [ErrorCode.DEADLINE_EXCEEDED]: GrpcStatus.DEADLINE_EXCEEDED,
  [ErrorCode.CANCELLED]: GrpcStatus.CANCELLED,
  [ErrorCode.INTERNAL]: GrpcStatus.INTERNAL,
};

const ERROR_CODE_BY_GRPC_STATUS = new Map<GrpcStatus, ErrorCode>(
  Object.entries(GRPC_STATUS_BY_ERROR_CODE).map(([code, grpcStatus]) => [grpcStatus, code as ErrorCode]),
);

/** Statuses with no domain meaning of their own (UNKNOWN, DATA_LOSS, UNIMPLEMENTED …) are INTERNAL. */
export function errorCodeForGrpcStatus(grpcStatus: GrpcStatus): ErrorCode {
  return ERROR_CODE_BY_GRPC_STATUS.get(grpcStatus) ?? ErrorCode.INTERNAL;
}

/** Trailing metadata keys that carry an error's details (documented in atelier/common/v1). */
export const ErrorMetadataKey = {
  REASON: 'atelier-error-reason',
  FIELD: 'atelier-error-field',
  RETRY_AFTER: 'retry-after',
  /** The message's values as a JSON object of strings and numbers (AppError.params). */
  PARAMS: 'atelier-error-params',
} as const;

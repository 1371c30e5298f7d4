import { Metadata, status as GrpcStatus, type ServiceError, type StatusObject } from '@grpc/grpc-js';
import { AppError, ErrorCode, isAppError } from '@atelier/errors';
import { ErrorMetadataKey, GRPC_STATUS_BY_ERROR_CODE, errorCodeForGrpcStatus } from './status-map.js';

/** The status a handler's failure is answered with. Unexpected errors never leak their message. */
export function toStatusObject(error: unknown): StatusObject {
  const metadata = new Metadata();
  if (!isAppError(error)) {
    return { code: GrpcStatus.INTERNAL, details: 'internal error', metadata };
  }
  if (error.reason) metadata.set(ErrorMetadataKey.REASON, error.reason);
  if (error.field) metadata.set(ErrorMetadataKey.FIELD, error.field);
  if (error.retryAfterSeconds !== undefined) {
    metadata.set(ErrorMetadataKey.RETRY_AFTER, String(Math.max(0, Math.ceil(error.retryAfterSeconds))));
  }
  if (error.params) metadata.set(ErrorMetadataKey.PARAMS, JSON.stringify(error.params));
  return { code: GRPC_STATUS_BY_ERROR_CODE[error.code], details: error.message, metadata };
}

/** Message params as sent (a JSON object of strings and numbers); anything else is dropped. */
function parseParams(raw: string | undefined): Record<string, string | number> | undefined {
  if (raw === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(raw);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
    const params: Record<string, string | number> = {};
    for (const [name, value] of Object.entries(parsed)) {
      if (typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value))) params[name] = value;
    }
    return params;
  } catch {
    return undefined;
  }
}

function isServiceError(error: unknown): error is ServiceError {
  return error instanceof Error && typeof (error as Partial<ServiceError>).code === 'number' && 'metadata' in error;
}

/** A failed call seen by a client, as the domain error the server raised. */
export function fromServiceError(error: unknown): AppError {
  if (isAppError(error)) return error;
  if (!isServiceError(error)) {
    return new AppError(ErrorCode.INTERNAL, error instanceof Error ? error.message : String(error), { cause: error });
  }
  const first = (key: string) => {
    const value = error.metadata?.get(key)[0];
    return value === undefined ? undefined : value.toString();
  };
  const retryAfter = first(ErrorMetadataKey.RETRY_AFTER);
  return new AppError(errorCodeForGrpcStatus(error.code), error.details || error.message, {
    reason: first(ErrorMetadataKey.REASON),
    field: first(ErrorMetadataKey.FIELD),
    retryAfterSeconds: retryAfter === undefined ? undefined : Number(retryAfter),
    params: parseParams(first(ErrorMetadataKey.PARAMS)),
    cause: error,
  });
}

/**
 * A refusal carried as data rather than as the call's status: one entry of a batch answer
 * (`EntryError` in the contracts) fails the way the single call would have, the others succeed.
 */
export interface StatusDetails {
  /** The canonical gRPC status code. */
  code: number;
  /** The stable reason; empty for none. */
  reason: string;
  message: string;
}

/** A domain error as StatusDetails, by the one status table. */
export function toStatusDetails(error: AppError): StatusDetails {
  return { code: GRPC_STATUS_BY_ERROR_CODE[error.code], reason: error.reason ?? '', message: error.message };
}

/** The domain error that StatusDetails stand for, as the single call would have thrown it. */
export function fromStatusDetails(details: StatusDetails): AppError {
  return new AppError(errorCodeForGrpcStatus(details.code), details.message, { reason: details.reason || undefined });
}

import { describe, expect, it } from 'vitest';
import { AbortedError, AppError, ErrorCode, InternalError } from '@atelier/errors';
import { GrpcStatus, fromStatusDetails, toStatusDetails } from './index.js';

describe('grpc - refusals carried as data (batch entries)', () => {
  it('writes a domain error as its gRPC status code, reason and message, and reads it back', () => {
    const details = toStatusDetails(new AbortedError('LEASE_LOST', 'the lease belongs to another worker'));
    expect(details).toEqual({ code: GrpcStatus.ABORTED, reason: 'LEASE_LOST', message: 'the lease belongs to another worker' });
    const error = fromStatusDetails(details);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: ErrorCode.ABORTED, reason: 'LEASE_LOST', message: 'the lease belongs to another worker' });
  });

  it('reads an empty reason as none, and a status without a domain meaning as INTERNAL', () => {
    expect(toStatusDetails(new AppError(ErrorCode.NOT_FOUND, 'gone'))).toEqual({ code: GrpcStatus.NOT_FOUND, reason: '', message: 'gone' });
    expect(fromStatusDetails({ code: GrpcStatus.NOT_FOUND, reason: '', message: 'gone' }).reason).toBeUndefined();
    expect(fromStatusDetails({ code: GrpcStatus.DATA_LOSS, reason: '', message: 'x' }).code).toBe(ErrorCode.INTERNAL);
    expect(toStatusDetails(new InternalError('boom')).code).toBe(GrpcStatus.INTERNAL);
  });
});

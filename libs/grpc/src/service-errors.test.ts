import { describe, expect, it } from 'vitest';
import { AbortedError, AppError, ErrorCode, InternalError, ResourceExhaustedError } from '@atelier/errors';
import { GrpcStatus, Metadata, fromServiceError, fromStatusDetails, toStatusDetails } from './index.js';
import { toStatusObject } from './service-errors.js';

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

describe('grpc - message params in trailing metadata', () => {
  it("carries an error's params to the caller, and drops what is not a flat object of strings and numbers", async () => {
    const sent = toStatusObject(
      new ResourceExhaustedError('POST_QUOTA_EXCEEDED', 'daily limit of 3 posts reached', 60, { params: { limit: 3 } }),
    );
    const received = fromServiceError(Object.assign(new Error('x'), { code: sent.code, details: sent.details, metadata: sent.metadata }));
    expect(received).toMatchObject({ reason: 'POST_QUOTA_EXCEEDED', params: { limit: 3 }, retryAfterSeconds: 60 });
    for (const raw of ['not json', '[1]', 'null']) {
      const metadata = new Metadata();
      metadata.set('atelier-error-params', raw);
      expect(fromServiceError(Object.assign(new Error('x'), { code: 8, details: 'x', metadata })).params).toBeUndefined();
    }
    const mixed = new Metadata();
    mixed.set('atelier-error-params', JSON.stringify({ limit: 3, nested: { a: 1 }, name: 'x' }));
    expect(fromServiceError(Object.assign(new Error('x'), { code: 8, details: 'x', metadata: mixed })).params).toEqual({
      limit: 3,
      name: 'x',
    });
  });
});

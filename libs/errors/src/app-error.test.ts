import { describe, expect, it } from 'vitest';
import {
  AppError,
  ErrorCode,
  InvalidArgumentError,
  NotFoundError,
  ResourceExhaustedError,
  UnavailableError,
  isAppError,
  isTransientError,
  peerFailure,
} from './index.js';

describe('errors - domain error shape', () => {
  it('names the field in the code, reason and message of an invalid argument', () => {
    const error = new InvalidArgumentError('media_kind', 'must be IMAGE or VIDEO');
    expect(error.code).toBe(ErrorCode.INVALID_ARGUMENT);
    expect(error.field).toBe('media_kind');
    expect(error.message).toBe('media_kind: must be IMAGE or VIDEO');
    expect(error.name).toBe('InvalidArgumentError');
    expect(isAppError(error)).toBe(true);
  });

  it('derives a stable NOT_FOUND reason from the entity name', () => {
    expect(new NotFoundError('model').reason).toBe('MODEL_NOT_FOUND');
    expect(new NotFoundError('input asset').reason).toBe('INPUT_ASSET_NOT_FOUND');
  });

  it('carries retry-after seconds and the cause', () => {
    const cause = new Error('boom');
    const error = new ResourceExhaustedError('GENERATION_QUOTA_EXCEEDED', 'daily limit reached', 3600, { cause });
    expect(error.retryAfterSeconds).toBe(3600);
    expect(error.cause).toBe(cause);
  });

  it('does not treat plain errors as domain errors', () => {
    expect(isAppError(new Error('x'))).toBe(false);
    expect(isAppError(new AppError(ErrorCode.INTERNAL, 'x'))).toBe(true);
  });
});

describe('errors - transient failures and peers', () => {
  it('calls UNAVAILABLE and DEADLINE_EXCEEDED transient, and nothing else', () => {
    expect(isTransientError(new UnavailableError('down'))).toBe(true);
    expect(isTransientError(new AppError(ErrorCode.DEADLINE_EXCEEDED, 'slow'))).toBe(true);
    expect(isTransientError(new NotFoundError('model'))).toBe(false);
    expect(isTransientError(Object.assign(new Error('raw'), { code: 14 }))).toBe(false);
  });

  it("answers a peer's transient failure as UNAVAILABLE to retry, anything else as INTERNAL", () => {
    const down = new UnavailableError('connect ECONNREFUSED');
    expect(peerFailure('media', down)).toMatchObject({
      code: ErrorCode.UNAVAILABLE,
      message: 'the media service is unavailable; try again shortly',
      cause: down,
    });
    expect(peerFailure('jobs', new TypeError('x'))).toMatchObject({ code: ErrorCode.INTERNAL, message: 'jobs lookup failed' });
    expect(peerFailure('jobs', new AppError(ErrorCode.PERMISSION_DENIED, 'no'))).toMatchObject({ code: ErrorCode.INTERNAL });
  });
});

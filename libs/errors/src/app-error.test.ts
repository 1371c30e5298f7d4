import { describe, expect, it } from 'vitest';
import { AppError, ErrorCode, InvalidArgumentError, NotFoundError, ResourceExhaustedError, isAppError } from './index.js';

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

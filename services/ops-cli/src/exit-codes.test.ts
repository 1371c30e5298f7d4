import { describe, expect, it } from 'vitest';
import { ConfigError } from '@atelier/config';
import { AppError, ErrorCode, InternalError } from '@atelier/errors';
import { errorText } from './error-text.js';
import { ExitCode, exitCodeFor, worstExitCode } from './exit-codes.js';

describe('errors - text and exit status', () => {
  it('maps each kind of failure to its exit status', () => {
    expect(exitCodeFor(new AppError(ErrorCode.UNAVAILABLE, 'down'))).toBe(ExitCode.UNAVAILABLE);
    expect(exitCodeFor(new AppError(ErrorCode.DEADLINE_EXCEEDED, 'slow'))).toBe(ExitCode.UNAVAILABLE);
    expect(exitCodeFor(new AppError(ErrorCode.FAILED_PRECONDITION, 'no'))).toBe(ExitCode.FAILURE);
    expect(exitCodeFor(new AppError(ErrorCode.PERMISSION_DENIED, 'no'))).toBe(ExitCode.NO_PERMISSION);
    expect(exitCodeFor(new ConfigError([{ variable: 'X', problem: 'bad' }]))).toBe(ExitCode.CONFIG);
    expect(exitCodeFor(new TypeError('oops'))).toBe(ExitCode.SOFTWARE);
    expect(worstExitCode([ExitCode.OK, ExitCode.FAILURE, ExitCode.UNAVAILABLE, ExitCode.OK])).toBe(ExitCode.UNAVAILABLE);
    expect(worstExitCode([])).toBe(ExitCode.OK);
  });

  it('labels an error with its reason and keeps stack traces for ATELIER_OPS_DEBUG', () => {
    expect(
      errorText(new AppError(ErrorCode.NOT_FOUND, 'outbox event not found', { reason: 'OUTBOX_EVENT_NOT_FOUND' }), { debug: false }),
    ).toBe('OUTBOX_EVENT_NOT_FOUND: outbox event not found');
    expect(errorText(new InternalError('boom'), { debug: false })).toBe('INTERNAL: boom');
    expect(errorText(new TypeError('x is undefined'), { debug: false })).toBe(
      'unexpected error: x is undefined (a bug in atelier-ops; ATELIER_OPS_DEBUG=1 prints the stack trace)',
    );
    expect(errorText(new TypeError('x is undefined'), { debug: true })).toMatch(/^unexpected error: TypeError: x is undefined\n\s+at /);
  });
});

import { describe, expect, it } from 'vitest';
import {
  AppError,
  ErrorCode,
  UnavailableError,
  ResourceExhaustedError,
  NotFoundError,
  FailedPreconditionError,
  AbortedError,
  InvalidArgumentError,
} from '@atelier/errors';
import { ApiError, RETIRED_CODES, apiErrorFor } from './error-codes.js';
import { toHttpError } from './http-error.js';

describe('gateway errors - one table from service answers to API codes', () => {
  it.each([
    [ErrorCode.INVALID_ARGUMENT, 'INVALID_ARGUMENT', 40000],
    [ErrorCode.NOT_FOUND, 'PET_NOT_FOUND', 40401],
    [ErrorCode.NOT_FOUND, 'ASSET_NOT_FOUND', 40405],
    [ErrorCode.NOT_FOUND, 'INPUT_ASSET_NOT_FOUND', 40405],
    [ErrorCode.NOT_FOUND, 'JOB_NOT_FOUND', 40407],
    [ErrorCode.NOT_FOUND, 'POST_NOT_FOUND', 40406],
    [ErrorCode.ALREADY_EXISTS, 'IDEMPOTENCY_PAYLOAD_MISMATCH', 40905],
    [ErrorCode.ABORTED, 'VERSION_CONFLICT', 40902],
    [ErrorCode.FAILED_PRECONDITION, 'MEDIA_NOT_READY', 42203],
    [ErrorCode.FAILED_PRECONDITION, 'GENERATION_JOB_NOT_SUCCEEDED', 42206],
    [ErrorCode.FAILED_PRECONDITION, 'MODEL_DISABLED', 42206],
    [ErrorCode.FAILED_PRECONDITION, 'UPLOAD_NOT_AN_IMAGE', 42200],
    [ErrorCode.FAILED_PRECONDITION, 'JOB_ALREADY_FINISHED', 42206],
    [ErrorCode.FAILED_PRECONDITION, 'ASSET_IN_USE', 40906],
    [ErrorCode.RESOURCE_EXHAUSTED, 'GENERATION_QUOTA_EXCEEDED', 42900],
    [ErrorCode.RESOURCE_EXHAUSTED, 'GENERATION_MONTHLY_QUOTA_EXCEEDED', 42902],
    [ErrorCode.RESOURCE_EXHAUSTED, 'UPLOAD_QUOTA_EXCEEDED', 42910],
    [ErrorCode.RESOURCE_EXHAUSTED, 'STORAGE_QUOTA_EXCEEDED', 42911],
    [ErrorCode.RESOURCE_EXHAUSTED, 'POST_QUOTA_EXCEEDED', 42912],
    [ErrorCode.RESOURCE_EXHAUSTED, 'RATE_LIMITED', 42920],
    [ErrorCode.UNAVAILABLE, 'UNAVAILABLE', 50300],
    [ErrorCode.UNAVAILABLE, 'PROVIDER_BUDGET_EXHAUSTED', 50301],
    [ErrorCode.DEADLINE_EXCEEDED, undefined, 50300],
    [ErrorCode.INTERNAL, 'INTERNAL', 50000],
  ] as const)('maps %s / %s to %i', (code, reason, expected) => {
    expect(ApiError[apiErrorFor(code, reason)].code).toBe(expected);
  });

  it('keeps codes unique: a code names one meaning', () => {
    const codes = Object.values(ApiError).map((e) => e.code);
    expect(new Set(codes).size).toBe(codes.length);
    for (const retired of Object.keys(RETIRED_CODES).map(Number))
      expect(codes, `${retired} is retired: never reused`).not.toContain(retired);
    for (const { status, code } of Object.values(ApiError)) expect(Math.floor(code / 100)).toBe(status);
  });

  it('answers a spent provider budget 503 50301 with its message and Retry-After to the next window, uncapped', () => {
    const spent = toHttpError(
      new UnavailableError('the budget is spent', { reason: 'PROVIDER_BUDGET_EXHAUSTED', retryAfterSeconds: 7_200.5 }),
    );
    expect(spent.http).toMatchObject({
      status: 503,
      apiError: 'PROVIDER_BUDGET_EXHAUSTED',
      message: 'the budget is spent',
      headers: { 'retry-after': '7201' },
    });
  });

  it('carries Retry-After on quota refusals and hides unexpected errors', () => {
    const quota = toHttpError(new ResourceExhaustedError('GENERATION_QUOTA_EXCEEDED', 'daily limit', 3600));
    expect(quota.http.status).toBe(429);
    expect(quota.http.headers).toEqual({ 'retry-after': '3600' });
    for (const reason of ['UPLOAD_QUOTA_EXCEEDED', 'STORAGE_QUOTA_EXCEEDED', 'POST_QUOTA_EXCEEDED', 'RATE_LIMITED']) {
      const limited = toHttpError(new ResourceExhaustedError(reason, 'a limit', 12.2));
      expect(limited.http).toMatchObject({ status: 429, apiError: reason, message: 'a limit', headers: { 'retry-after': '13' } });
    }
    const bug = toHttpError(new TypeError('x is undefined at secret.ts:12'));
    expect(bug).toMatchObject({ unexpected: true, http: { status: 500, message: 'internal error' } });
    expect(toHttpError(new NotFoundError('job')).http.apiError).toBe('JOB_NOT_FOUND');
    expect(toHttpError(new FailedPreconditionError('STYLE_DISABLED', 'x')).http.status).toBe(422);
    expect(toHttpError(new AbortedError('VERSION_CONFLICT', 'stale')).http.status).toBe(409);
    expect(toHttpError(new InvalidArgumentError('prompt', 'too long')).http.message).toBe('prompt: too long');
  });

  it("puts a quota refusal's allowance and reset in the body, for 429s that name one only", () => {
    const params = { variant: 'monthly', allowance: 'monthly', limit: 300, resetsAt: '2027-01-01T00:00:00.000Z' };
    const monthly = toHttpError(new ResourceExhaustedError('GENERATION_MONTHLY_QUOTA_EXCEEDED', 'monthly limit', 86_400, { params }));
    expect(monthly.http).toMatchObject({ status: 429, apiError: 'GENERATION_MONTHLY_QUOTA_EXCEEDED', headers: { 'retry-after': '86400' } });
    expect(monthly.http.details).toEqual({ allowance: 'monthly', resetsAt: '2027-01-01T00:00:00.000Z' });
    const inFlight = { variant: 'in_flight', allowance: 'in_flight', limit: 2 };
    expect(toHttpError(new ResourceExhaustedError('GENERATION_QUOTA_EXCEEDED', 'busy', 10, { params: inFlight })).http.details).toEqual({
      allowance: 'in_flight',
    });
    // Params without an allowance (uploads per day), or an allowance outside a 429, add nothing.
    expect(toHttpError(new ResourceExhaustedError('UPLOAD_QUOTA_EXCEEDED', 'x', 5, { params: { limit: 50 } })).http.details).toEqual({});
    expect(toHttpError(new InvalidArgumentError('x', 'y', { params: { allowance: 'daily' } })).http.details).toEqual({});
  });

  it('answers a dependency outage 503 with Retry-After and without the peer addresses grpc-js puts in its messages', () => {
    const down = toHttpError(
      new UnavailableError('round_robin: No connection established. Last error: connect ECONNREFUSED 10.1.2.3:50053'),
    );
    expect(down).toMatchObject({ unexpected: false, http: { status: 503, apiError: 'UNAVAILABLE' } });
    expect(down.http.headers).toEqual({ 'retry-after': '2' });
    expect(down.http.message).toBe('a service is unavailable right now; try again in 2 s');
    const slow = toHttpError(new AppError(ErrorCode.DEADLINE_EXCEEDED, 'deadline exceeded after 5.001s, LB pick: 10.1.2.3'));
    expect(slow.http.status).toBe(503);
    expect(slow.http.message).not.toContain('10.1.2.3');
    expect(toHttpError(new UnavailableError('db', { retryAfterSeconds: 7 })).http.headers).toEqual({ 'retry-after': '7' });
  });
});

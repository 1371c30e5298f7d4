import { describe, expect, it } from 'vitest';
import {
  AppError,
  ErrorCode,
  InvalidArgumentError,
  NotFoundError,
  ResourceExhaustedError,
  UnavailableError,
  isAppError,
  isConnectionLossSqlState,
  isTransientError,
  isTransientHttpStatus,
  isTransientNetworkCode,
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

describe('errors - what is transient: one classification for every caller', () => {
  /** What fetch (undici) throws when the request never got an answer: the socket's error is the cause. */
  const fetchFailed = (cause: unknown) => new TypeError('fetch failed', { cause });
  const systemError = (code: string) => Object.assign(new Error(`connect ${code} 127.0.0.1:50053`), { code });
  const named = (name: string) => Object.assign(new Error(name), { name });
  const grpcError = (code: number) => Object.assign(new Error(`${code} status`), { code, details: 'status', metadata: {} });
  const sqlError = (code: string) => Object.assign(new Error(`SQLSTATE ${code}`), { name: 'error', code });

  it.each([
    ['UNAVAILABLE', new UnavailableError('down')],
    ['DEADLINE_EXCEEDED', new AppError(ErrorCode.DEADLINE_EXCEEDED, 'slow')],
    ['a grpc-js ServiceError UNAVAILABLE (14)', grpcError(14)],
    ['a grpc-js ServiceError DEADLINE_EXCEEDED (4)', grpcError(4)],
    ['a connection refused', systemError('ECONNREFUSED')],
    ['a connection reset', systemError('ECONNRESET')],
    ['a write to a closed socket', systemError('EPIPE')],
    ['a connect timed out', systemError('ETIMEDOUT')],
    ['a name not resolvable right now', systemError('EAI_AGAIN')],
    ['a host not reachable', systemError('EHOSTUNREACH')],
    ['fetch: refused', fetchFailed(systemError('ECONNREFUSED'))],
    [
      'fetch: the socket closed mid-answer',
      new TypeError('terminated', { cause: Object.assign(named('SocketError'), { code: 'UND_ERR_SOCKET' }) }),
    ],
    [
      'fetch: every address of the name refused',
      fetchFailed(new AggregateError([systemError('ECONNREFUSED'), systemError('ECONNREFUSED')])),
    ],
    ['AbortSignal.timeout', new DOMException('The operation was aborted due to timeout', 'TimeoutError')],
    ['NATS: no answer in time', named('TimeoutError')],
    ['NATS: the connection lost', named('ConnectionError')],
    ['NATS: the connection closed', named('ClosedConnectionError')],
    ['NATS: the connection draining', named('DrainingConnectionError')],
    ['NATS: a request that failed (a timeout, no responders)', named('RequestError')],
    ['Postgres: the server shutting down (57P01)', sqlError('57P01')],
    ['Postgres: the server starting (57P03)', sqlError('57P03')],
    ['Postgres: no connection left (53300)', sqlError('53300')],
    ['Postgres: the connection failed (class 08)', sqlError('08006')],
  ])('calls %s transient', (_, error) => {
    expect(isTransientError(error)).toBe(true);
  });

  it.each([
    ['NOT_FOUND', new NotFoundError('model')],
    ['INVALID_ARGUMENT', new InvalidArgumentError('prompt', 'too long')],
    ['RESOURCE_EXHAUSTED (a quota: its Retry-After says when, not a blip)', new ResourceExhaustedError('QUOTA', 'no', 60)],
    ['INTERNAL', new AppError(ErrorCode.INTERNAL, 'bug')],
    ['CANCELLED (the caller gave up)', new AppError(ErrorCode.CANCELLED, 'gone')],
    [
      'an AppError of its own code, whatever it wraps',
      new AppError(ErrorCode.INTERNAL, 'lookup failed', { cause: new UnavailableError('down') }),
    ],
    ['a plain error with a numeric code (not a grpc-js error)', Object.assign(new Error('raw'), { code: 14 })],
    ['a grpc-js ServiceError NOT_FOUND (5)', grpcError(5)],
    ['an abort (AbortError)', new DOMException('This operation was aborted', 'AbortError')],
    ['a bug', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['fetch: a URL it cannot fetch', fetchFailed(new Error('bad port'))],
    [
      'fetch: a certificate refused',
      fetchFailed(Object.assign(new Error('unable to verify the first certificate'), { code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' })),
    ],
    [
      'a classified error that wraps a transient one (the worker judges its own)',
      Object.assign(named('JobFailure'), { cause: systemError('ECONNRESET') }),
    ],
    ['NATS: no permission', named('PermissionViolationError')],
    ['NATS: a JetStream refusal', named('JetStreamApiError')],
    ['Postgres: a unique violation (23505)', sqlError('23505')],
    ['Postgres: a serialization failure (40001: the transaction is run again by @atelier/db, not the call)', sqlError('40001')],
    ['nothing', undefined],
    ['a string', 'ECONNRESET'],
  ])('does not call %s transient', (_, error) => {
    expect(isTransientError(error)).toBe(false);
  });

  it('calls a vendor answer transient for 408, 429 and 5xx, and no other status', () => {
    expect([408, 429, 500, 502, 503, 504, 599].every(isTransientHttpStatus)).toBe(true);
    expect([200, 301, 400, 401, 403, 404, 409, 410, 422, 600].some(isTransientHttpStatus)).toBe(false);
  });

  it('names network codes and Postgres connection-loss states for the libraries that look further into their errors', () => {
    expect(['ECONNRESET', 'ENOTFOUND', 'UND_ERR_CONNECT_TIMEOUT'].every(isTransientNetworkCode)).toBe(true);
    expect(isTransientNetworkCode('ERR_TLS_CERT_ALTNAME_INVALID')).toBe(false);
    expect(['57P01', '57P02', '57P03', '53300', '08000', '08P01'].every(isConnectionLossSqlState)).toBe(true);
    expect(['23505', '40001', '57014'].some(isConnectionLossSqlState)).toBe(false);
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

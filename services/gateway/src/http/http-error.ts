import { AppError, isAppError } from '@atelier/errors';
import { ApiError, apiErrorFor, type ApiErrorName } from './error-codes.js';

/** Retry-After of a 503 whose cause gave none: most outages the platform rides out are short. */
const UNAVAILABLE_RETRY_AFTER_SECONDS = 2;

/** Facts of a refusal the error body carries beside its message, for a client to act on without parsing it. */
export interface ErrorDetails {
  /** A quota refusal: the allowance that ran out (`daily`, `monthly`, `in_flight`). */
  allowance?: string;
  /** A quota refusal of a windowed allowance: when it starts again from 0 (ISO 8601). */
  resetsAt?: string;
}

/** An error answered to the client: HTTP status, business code, a message it can act on. */
export class HttpError extends Error {
  override name = 'HttpError';
  constructor(
    readonly apiError: ApiErrorName,
    message: string,
    readonly headers: Record<string, string> = {},
    /** The service's reason and message values, for the message in another language (i18n/). */
    readonly source: { reason?: string | undefined; params?: Readonly<Record<string, string | number>> | undefined } = {},
    /** Sent in the body's `error` beside code, name and message. */
    readonly details: ErrorDetails = {},
  ) {
    super(message);
  }

  get status(): number {
    return ApiError[this.apiError].status;
  }
}

export function badRequest(message: string): HttpError {
  return new HttpError('BAD_REQUEST', message);
}

/** Any failure of a request handler, as what the client sees. Unexpected errors never leak. */
export function toHttpError(error: unknown): { http: HttpError; unexpected: boolean } {
  if (error instanceof HttpError) return { http: error, unexpected: false };
  if (isAppError(error)) {
    const name = apiErrorFor(error.code, error.reason);
    const headers: Record<string, string> = {};
    // Every limit (429) says when the call may succeed: the seconds its window needs to free.
    if (ApiError[name].status === 429 && error.retryAfterSeconds !== undefined)
      headers['retry-after'] = String(Math.max(1, Math.ceil(error.retryAfterSeconds)));
    // A spent budget says when its window opens (the next UTC day), hours away: not capped like a blip.
    if (name === 'PROVIDER_BUDGET_EXHAUSTED') headers['retry-after'] = String(Math.max(1, Math.ceil(error.retryAfterSeconds ?? 60)));
    if (name === 'UNAVAILABLE') {
      // A dependency is down or too slow: say when to come back, and nothing about where it runs
      // (grpc-js messages carry peer addresses).
      const seconds = Math.max(1, Math.min(60, Math.ceil(error.retryAfterSeconds ?? UNAVAILABLE_RETRY_AFTER_SECONDS)));
      headers['retry-after'] = String(seconds);
      return { http: new HttpError(name, `a service is unavailable right now; try again in ${seconds} s`, headers), unexpected: false };
    }
    const unexpected = name === 'INTERNAL';
    if (unexpected) return { http: new HttpError(name, 'internal error', headers), unexpected };
    const source = { reason: error.reason, params: error.params };
    return { http: new HttpError(name, error.message, headers, source, limitDetailsOf(name, error.params)), unexpected };
  }
  return { http: new HttpError('INTERNAL', 'internal error'), unexpected: true };
}

/**
 * What a limit's refusal says beside its message: a 429 whose service named the allowance that
 * ran out (params `allowance`, and `resetsAt` for one with a window: jobs' quota refusals) shows
 * both in the body.
 */
function limitDetailsOf(name: ApiErrorName, params: Readonly<Record<string, string | number>> | undefined): ErrorDetails {
  if (ApiError[name].status !== 429 || typeof params?.allowance !== 'string') return {};
  return {
    allowance: params.allowance,
    ...(typeof params.resetsAt === 'string' ? { resetsAt: params.resetsAt } : {}),
  };
}

export { AppError };

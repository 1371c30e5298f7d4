/**
 * The one error shape of the HTTP API: `{"error":{"code":"...","message":"..."}}` with a status.
 * Handlers throw it; the server's error handler writes it. Codes are a contract with the worker
 * (it classifies refusals by status and code), so they never change meaning.
 */
export class ApiError extends Error {
  override name = 'ApiError';

  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    /** Extra response headers, e.g. `Retry-After` on 429 or `WWW-Authenticate` on 401. */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }

  toBody(): { error: { code: string; message: string } } {
    return { error: { code: this.code, message: this.message } };
  }
}

/** 400 `invalid_request`; the message starts with the field at fault so callers can act on it. */
export function invalidRequest(field: string, problem: string): ApiError {
  return new ApiError(400, 'invalid_request', `${field}: ${problem}`);
}

export function predictionNotFound(id: string): ApiError {
  return new ApiError(404, 'not_found', `no prediction ${JSON.stringify(id)}: it never existed or was evicted from memory`);
}

/** 503 `unavailable` for a read the simulation refuses (`#sim-flaky`): the prediction goes on. */
export function flakyRead(what: string): ApiError {
  return new ApiError(503, 'unavailable', `${what} is temporarily unavailable (simulated); retry shortly`);
}

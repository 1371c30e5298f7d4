import type { FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from '../http/http-error.js';
import type { ApiErrorName } from '../http/error-codes.js';
import { KeySourceUnavailable, TokenRefused, type Caller, type RefusalKind, type TokenVerifier } from './token-verifier.js';

declare module 'fastify' {
  interface FastifyRequest {
    caller?: Caller;
  }
}

/** Seconds a client waits before trying again while the token keys cannot be read. */
const KEYS_UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

const REFUSAL_ERRORS: Readonly<Record<RefusalKind, ApiErrorName>> = {
  expired: 'TOKEN_EXPIRED',
  'no-expiry': 'TOKEN_WITHOUT_EXPIRY',
  invalid: 'UNAUTHENTICATED',
};

/** The caller of an authenticated route (set by the authenticate hook). */
export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw new HttpError('UNAUTHENTICATED', 'authentication required');
  return request.caller;
}

/** Bearer JWT → request.caller; a bad token is 401 with what was wrong, unreadable keys a 503. */
export function authenticate(tokens: TokenVerifier) {
  return async (request: FastifyRequest, _reply: FastifyReply) => {
    const header = request.headers.authorization;
    const match = header ? /^Bearer\s+(\S+)$/i.exec(header) : null;
    if (!match) throw new HttpError('UNAUTHENTICATED', 'send "Authorization: Bearer <token>"');
    try {
      request.caller = await tokens.verify(match[1]!);
    } catch (error) {
      if (error instanceof KeySourceUnavailable) {
        // Not the token's fault: the client should come back, not sign in again. The message
        // stays generic (the JWKS URL and its error are for the logs).
        request.log.warn({ err: error }, 'token keys unavailable');
        throw new HttpError('UNAVAILABLE', `tokens cannot be checked right now; try again in ${KEYS_UNAVAILABLE_RETRY_AFTER_SECONDS} s`, {
          'retry-after': String(KEYS_UNAVAILABLE_RETRY_AFTER_SECONDS),
        });
      }
      const kind = error instanceof TokenRefused ? error.kind : 'invalid';
      throw new HttpError(REFUSAL_ERRORS[kind], `the token was refused: ${(error as Error).message}`);
    }
  };
}

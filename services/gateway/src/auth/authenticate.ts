import type { FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from '../http/http-error.js';
import type { Caller, TokenVerifier } from './token-verifier.js';

declare module 'fastify' {
  interface FastifyRequest {
    caller?: Caller;
  }
}

/** The caller of an authenticated route (set by the authenticate hook). */
export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw new HttpError('UNAUTHENTICATED', 'authentication required');
  return request.caller;
}

/** Bearer JWT → request.caller; anything else is 401 with what was wrong. */
export function authenticate(tokens: TokenVerifier) {
  return async (request: FastifyRequest, _reply: FastifyReply) => {
    const header = request.headers.authorization;
    const match = header ? /^Bearer\s+(\S+)$/i.exec(header) : null;
    if (!match) throw new HttpError('UNAUTHENTICATED', 'send "Authorization: Bearer <token>"');
    try {
      request.caller = await tokens.verify(match[1]!);
    } catch (error) {
      throw new HttpError('UNAUTHENTICATED', `the token was refused: ${(error as Error).message}`);
    }
  };
}

/** Operator routes: the token must carry role admin. */
export async function requireAdmin(request: FastifyRequest): Promise<void> {
  if (!callerOf(request).isAdmin) throw new HttpError('FORBIDDEN', 'this route needs the admin role');
}

import type { FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from '../http/http-error.js';
import type { LimitKind } from './rate-limiter.js';
import type { SharedRateLimiter } from './shared-rate-limiter.js';

/** Probes and scrapes are never limited: a busy caller must not take a pod out of its Service. */
const UNLIMITED_PATHS = new Set(['/healthz', '/readyz', '/readyz/peers', '/metrics']);

/**
 * The bucket of a request that has no address: Node forgets the peer's address once the socket
 * closed, so a request aborted before its hooks ran has request.ip undefined. Such requests share
 * one bucket (nobody reads their answer) instead of failing the limiter with an undefined id.
 */
export const NO_ADDRESS = 'no-address';

/** The client address a request counts under (trustProxy already applied to request.ip). */
export function addressOf(request: Pick<FastifyRequest, 'ip'>): string {
  return request.ip || NO_ADDRESS;
}

async function enforce(limiter: SharedRateLimiter, kind: LimitKind, id: string): Promise<void> {
  const verdict = await limiter.check(kind, id);
  if (verdict.allowed) return;
  limiter.refused(kind);
  throw new HttpError(
    'RATE_LIMITED',
    `too many requests from this ${kind === 'user' ? 'account' : 'address'}; try again in ${verdict.retryAfterSeconds} s`,
    { 'retry-after': String(verdict.retryAfterSeconds) },
  );
}

/**
 * Root onRequest hook: requests outside the authenticated scopes (/docs, /openapi.json, unknown
 * routes) count per client address. /api and /admin-api are limited by authenticateWithinLimits.
 */
export function limitUnauthenticatedRoutes(limiter: SharedRateLimiter) {
  return async (request: FastifyRequest) => {
    const path = request.url.split('?')[0]!;
    if (UNLIMITED_PATHS.has(path) || path.startsWith('/api/') || path.startsWith('/admin-api/')) return;
    await enforce(limiter, 'address', addressOf(request));
  };
}

/**
 * Wraps the authenticate hook of a scope: a verified caller counts per subject (however many
 * addresses it comes from); a request whose token is missing or refused counts per address, and
 * once the address is over its limit gets 429 instead of 401 (no free token guessing).
 */
export function authenticateWithinLimits(
  authenticate: (request: FastifyRequest, reply: FastifyReply) => Promise<void>,
  limiter: SharedRateLimiter,
) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    try {
      await authenticate(request, reply);
    } catch (error) {
      await enforce(limiter, 'address', addressOf(request));
      throw error;
    }
    await enforce(limiter, 'user', request.caller!.userId);
  };
}

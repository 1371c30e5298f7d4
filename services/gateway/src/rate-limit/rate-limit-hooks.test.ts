import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import type { Reservation } from '@atelier/nats';
import { HttpError } from '../http/http-error.js';
import { authenticateWithinLimits, limitUnauthenticatedRoutes, NO_ADDRESS } from './rate-limit-hooks.js';
import { RateLimiter, type LimitKind } from './rate-limiter.js';
import type { SharedRateLimiter } from './shared-rate-limiter.js';

/** The real limiter on counters in memory, recording which ids it was asked about. */
function limiterInMemory() {
  const counts = new Map<string, number>();
  const limiter = new RateLimiter({
    settings: { windowMs: 60_000, userMax: 50, addressMax: 2, batchMax: 1 },
    counters: () => ({
      async reserve(key: string, _want: (remaining: number) => number, limit: number): Promise<Reservation> {
        const count = counts.get(key) ?? 0;
        if (count >= limit) return { granted: 0, count };
        counts.set(key, count + 1);
        return { granted: 1, count: count + 1 };
      },
      forgetBefore() {},
    }),
    onFailOpen: () => {},
  });
  const asked: { kind: LimitKind; id: string }[] = [];
  const shared: SharedRateLimiter = {
    check: (kind, id) => {
      asked.push({ kind, id });
      return limiter.check(kind, id);
    },
    refused: () => {},
    close: async () => {},
  };
  return { shared, asked };
}

/** A request whose client went away before the hooks ran: Node no longer knows its address. */
const aborted = (url: string) => ({ url, ip: undefined }) as unknown as FastifyRequest;

describe('rate limit hooks - a request without an address', () => {
  it('counts an aborted request in one defined bucket instead of hashing undefined', async () => {
    const { shared, asked } = limiterInMemory();
    const hook = limitUnauthenticatedRoutes(shared);
    await expect(hook(aborted('/docs'))).resolves.toBeUndefined();
    await expect(hook(aborted('/openapi.json'))).resolves.toBeUndefined();
    expect(asked).toEqual([
      { kind: 'address', id: NO_ADDRESS },
      { kind: 'address', id: NO_ADDRESS },
    ]);
    // The bucket is a real one: past the address limit it refuses like any other address.
    await expect(hook(aborted('/docs'))).rejects.toMatchObject({ apiError: 'RATE_LIMITED' });
  });

  it('answers a refused token of an aborted request with the token error, not a limiter failure', async () => {
    const { shared, asked } = limiterInMemory();
    const refusal = new HttpError('UNAUTHENTICATED', 'a bearer token is required');
    const hook = authenticateWithinLimits(async () => {
      throw refusal;
    }, shared);
    await expect(hook(aborted('/api/v1/creation/jobs'), {} as never)).rejects.toBe(refusal);
    expect(asked).toEqual([{ kind: 'address', id: NO_ADDRESS }]);
  });
});

import { describe, expect, it } from 'vitest';
import type { Reservation } from '@atelier/nats';
import { RateLimiter, type RateLimitSettings, type SharedCounters } from './rate-limiter.js';

/** The shared store's contract in memory: grants never pass the limit; calls take a tick. */
function memoryCounters(): SharedCounters & { calls: number } {
  const counts = new Map<string, number>();
  return {
    calls: 0,
    async reserve(key: string, want: (remaining: number) => number, limit: number): Promise<Reservation> {
      this.calls += 1;
      await new Promise((resolve) => setTimeout(resolve, 1));
      const count = counts.get(key) ?? 0;
      if (count >= limit) return { granted: 0, count };
      const granted = Math.max(1, Math.min(limit - count, want(limit - count)));
      counts.set(key, count + granted);
      return { granted, count: count + granted };
    },
    forgetBefore() {},
  };
}

const settings: RateLimitSettings = { windowMs: 60_000, userMax: 50, addressMax: 5, batchMax: 20 };

describe('rate limiter - shared windows', () => {
  it('admits at most the limit across two replicas under concurrent requests, then says when the window frees', async () => {
    const counters = memoryCounters();
    let now = 120_000 + 15_000;
    const replicas = [0, 1].map(() => new RateLimiter({ settings, counters: () => counters, onFailOpen: () => {}, now: () => now }));
    const verdicts = await Promise.all(Array.from({ length: 200 }, (_, i) => replicas[i % 2]!.check('user', 'alice')));
    const admitted = verdicts.filter((v) => v.allowed).length;
    expect(admitted).toBeLessThanOrEqual(settings.userMax);
    // Units reserved by one replica and unused are lost to the other: at most one batch each.
    expect(admitted).toBeGreaterThanOrEqual(settings.userMax - 2 * settings.batchMax);
    expect(verdicts.find((v) => !v.allowed)).toEqual({ allowed: false, retryAfterSeconds: 45 });
    // Far fewer store calls than requests: units come in batches while the window is empty.
    expect(counters.calls).toBeLessThan(100);
    await expect(replicas[0]!.check('user', 'bob')).resolves.toEqual({ allowed: true });

    now = 180_000;
    await expect(replicas[0]!.check('user', 'alice')).resolves.toEqual({ allowed: true });
  });

  it('is exact near the limit: units are reserved one by one', async () => {
    const counters = memoryCounters();
    const replicas = [0, 1].map(() => new RateLimiter({ settings, counters: () => counters, onFailOpen: () => {} }));
    const verdicts = [];
    for (let i = 0; i < 12; i += 1) verdicts.push(await replicas[i % 2]!.check('address', '10.0.0.7'));
    expect(verdicts.filter((v) => v.allowed)).toHaveLength(settings.addressMax);
  });

  it('fails open when the store is down or failing, and says so', async () => {
    const reasons: string[] = [];
    const down = new RateLimiter({ settings, counters: () => undefined, onFailOpen: (reason) => reasons.push(reason) });
    for (let i = 0; i < 10; i += 1) await expect(down.check('address', '10.0.0.8')).resolves.toEqual({ allowed: true });
    const failing: SharedCounters = { reserve: () => Promise.reject(new Error('timeout')), forgetBefore() {} };
    const broken = new RateLimiter({ settings, counters: () => failing, onFailOpen: (reason) => reasons.push(reason) });
    await expect(broken.check('user', 'carol')).resolves.toEqual({ allowed: true });
    expect(reasons).toEqual([...Array<string>(10).fill('store_down'), 'store_error']);
  });
});

import { describe, expect, it } from 'vitest';
import { decide, nextUtcDay, refill, takePermits, type ProviderGateState } from './provider-gates.js';

const now = new Date('2026-12-03T21:00:00Z');
const state = (overrides: Partial<ProviderGateState> = {}): ProviderGateState => ({
  pausedUntil: null,
  budgets: [],
  caps: [],
  ...overrides,
});
const job = { providerModel: 'm', onPlatformKey: true };

describe('provider gates - decide', () => {
  it('admits with no gates, and counts each admitted job against the caps of its model', () => {
    const gates = state({
      caps: [
        { model: '', maxConcurrent: 2, running: 0 },
        { model: 'other', maxConcurrent: 1, running: 1 },
      ],
    });
    expect(decide(gates, job, now)).toEqual({ admit: true });
    expect(decide(gates, job, now)).toEqual({ admit: true });
    expect(decide(gates, job, now)).toMatchObject({ admit: false, reason: 'concurrency' });
    expect(gates.caps.map((cap) => cap.running)).toEqual([2, 1]);
  });

  it('throttle before budget before cap; a budget reopens at the next UTC day', () => {
    const spent = { model: '', limitMicros: 10, spentMicros: 10 };
    const full = { model: 'm', maxConcurrent: 0, running: 0 };
    const paused = new Date(now.getTime() + 5_000);
    expect(decide(state({ pausedUntil: paused, budgets: [spent], caps: [full] }), job, now)).toEqual({
      admit: false,
      reason: 'vendor_throttled',
      notBefore: paused,
    });
    expect(decide(state({ budgets: [spent], caps: [full] }), job, now)).toEqual({
      admit: false,
      reason: 'budget',
      notBefore: new Date('2026-12-04T00:00:00Z'),
    });
    // A user's own key is the user's vendor account: not held to our budget, cap or throttle.
    const userKeyJob = { ...job, onPlatformKey: false };
    expect(decide(state({ budgets: [spent] }), userKeyJob, now)).toEqual({ admit: true });
    expect(decide(state({ caps: [{ model: '', maxConcurrent: 1, running: 1 }] }), userKeyJob, now)).toEqual({ admit: true });
    expect(decide(state({ pausedUntil: new Date(now.getTime() + 60_000) }), userKeyJob, now)).toEqual({ admit: true });
    // A past throttle holds nothing.
    expect(decide(state({ pausedUntil: new Date(now.getTime() - 1) }), job, now)).toEqual({ admit: true });
  });

  it('a model budget binds only its model', () => {
    const gates = state({ budgets: [{ model: 'other', limitMicros: 1, spentMicros: 5 }] });
    expect(decide(gates, job, now)).toEqual({ admit: true });
  });
});

describe('provider gates - token bucket', () => {
  it('refills at the rate up to the burst, and grants whole permits', () => {
    expect(refill(0, 500, 10, 4)).toBe(4);
    expect(refill(1, 100, 10, 4)).toBe(2);
    expect(refill(1, -100, 10, 4)).toBe(1);
    expect(takePermits(2.5, 2, 10)).toEqual({ granted: 2, left: 0.5, retryAfterMs: 0 });
    expect(takePermits(2.5, 5, 10)).toEqual({ granted: 2, left: 0.5, retryAfterMs: 50 });
    expect(takePermits(0.99, 1, 1000).retryAfterMs).toBe(10);
  });

  it('the next UTC day', () => {
    expect(nextUtcDay(new Date('2026-12-31T23:59:59Z'))).toEqual(new Date('2027-01-01T00:00:00Z'));
  });
});

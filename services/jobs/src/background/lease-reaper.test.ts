import { describe, expect, it } from 'vitest';
import { reaperSleepMs } from './lease-reaper.js';

describe('lease reaper - when it wakes', () => {
  it('as the earliest lease expires, a moment after, never later than its interval', () => {
    expect(reaperSleepMs(3_000, 10_000)).toBe(3_020);
    expect(reaperSleepMs(9_990, 10_000)).toBe(10_000);
    expect(reaperSleepMs(45_000, 10_000)).toBe(10_000);
  });
  it('after its interval when no job runs', () => {
    expect(reaperSleepMs(null, 10_000)).toBe(10_000);
  });
  it('soon, not at once, when a lease is still there after its expiry (another replica is reaping it)', () => {
    expect(reaperSleepMs(-500, 10_000)).toBe(100);
    expect(reaperSleepMs(0, 10_000)).toBe(100);
  });
});

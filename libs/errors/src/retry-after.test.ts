import { describe, expect, it } from 'vitest';
import { nextUtcDay, nextUtcMonth, secondsToNextUtcDay, secondsToNextUtcMonth } from './index.js';

describe('retry-after - daily windows', () => {
  it('counts the seconds to the next UTC midnight, never less than one', () => {
    expect(secondsToNextUtcDay(new Date('2026-12-01T23:00:00Z'))).toBe(3600);
    expect(secondsToNextUtcDay(new Date('2026-12-01T00:00:00Z'))).toBe(86_400);
    expect(secondsToNextUtcDay(new Date('2026-12-01T23:59:59.900Z'))).toBe(1);
    expect(nextUtcDay(new Date('2026-12-31T08:00:00Z'))).toEqual(new Date('2027-01-01T00:00:00Z'));
  });
});

describe('retry-after - monthly windows', () => {
  it('counts the seconds to the first midnight of the next UTC month, across a year and a short February', () => {
    expect(nextUtcMonth(new Date('2026-12-15T10:00:00Z'))).toEqual(new Date('2027-01-01T00:00:00Z'));
    expect(nextUtcMonth(new Date('2028-02-29T23:59:59Z'))).toEqual(new Date('2028-03-01T00:00:00Z'));
    expect(secondsToNextUtcMonth(new Date('2026-11-30T23:00:00Z'))).toBe(3600);
    expect(secondsToNextUtcMonth(new Date('2026-11-01T00:00:00Z'))).toBe(30 * 86_400);
    expect(secondsToNextUtcMonth(new Date('2026-11-30T23:59:59.900Z'))).toBe(1);
  });

  it('takes the UTC month, not the local one: 1 Dec 05:00 in Shanghai is still 30 Nov UTC', () => {
    expect(nextUtcMonth(new Date('2026-12-01T05:00:00+08:00'))).toEqual(new Date('2026-12-01T00:00:00Z'));
  });
});

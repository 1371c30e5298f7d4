import { describe, expect, it } from 'vitest';
import { secondsToNextUtcDay } from './index.js';

describe('retry-after - daily windows', () => {
  it('counts the seconds to the next UTC midnight, never less than one', () => {
    expect(secondsToNextUtcDay(new Date('2026-12-01T23:00:00Z'))).toBe(3600);
    expect(secondsToNextUtcDay(new Date('2026-12-01T00:00:00Z'))).toBe(86_400);
    expect(secondsToNextUtcDay(new Date('2026-12-01T23:59:59.900Z'))).toBe(1);
  });
});

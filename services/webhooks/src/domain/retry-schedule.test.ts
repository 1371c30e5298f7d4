import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_SCHEDULE_MS, parseRetrySchedule, retryDelayMs } from './retry-schedule.js';

describe('retry schedule - exponential backoff for hours', () => {
  it('waits 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, then gives up', () => {
    const delays = [1, 2, 3, 4, 5, 6, 7].map((failed) => retryDelayMs(DEFAULT_RETRY_SCHEDULE_MS, failed));
    expect(delays).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, undefined]);
  });

  it('reads WEBHOOK_RETRY_SCHEDULE_MS', () => {
    expect(parseRetrySchedule('100, 200,400')).toEqual([100, 200, 400]);
    expect(() => parseRetrySchedule('')).toThrow(/comma-separated/);
    expect(() => parseRetrySchedule('5s')).toThrow(/milliseconds/);
  });
});

import { describe, expect, it } from 'vitest';
import { overviewBuckets } from './overview-window.js';

describe('overview window - buckets', () => {
  it('buckets per minute up to 3 h, per 5 minutes up to 12 h, per 15 minutes up to 24 h', () => {
    expect(overviewBuckets(60)).toEqual({ windowMinutes: 60, bucketMinutes: 1, bucketCount: 60 });
    expect(overviewBuckets(180)).toEqual({ windowMinutes: 180, bucketMinutes: 1, bucketCount: 180 });
    expect(overviewBuckets(181)).toEqual({ windowMinutes: 181, bucketMinutes: 5, bucketCount: 36 });
    expect(overviewBuckets(720)).toEqual({ windowMinutes: 720, bucketMinutes: 5, bucketCount: 144 });
    expect(overviewBuckets(1439)).toEqual({ windowMinutes: 1439, bucketMinutes: 15, bucketCount: 95 });
    expect(overviewBuckets(1440)).toEqual({ windowMinutes: 1440, bucketMinutes: 15, bucketCount: 96 });
  });

  it('refuses a window outside 60–1440 minutes, naming the field', () => {
    for (const bad of [0, 59, 1441, 90.5, Number.NaN]) {
      expect(() => overviewBuckets(bad)).toThrow(expect.objectContaining({ field: 'window_minutes', code: 'INVALID_ARGUMENT' }));
    }
    expect(() => overviewBuckets(0)).toThrow('window_minutes: must be an integer between 60 and 1440');
  });
});

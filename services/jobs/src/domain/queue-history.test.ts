import { describe, expect, it } from 'vitest';
import { queueHistory } from './queue-history.js';

const MINUTE = 60_000;
const start = new Date('2026-12-02T10:00:00Z');
const bucket = (i: number, minutes = 1) => new Date(start.getTime() + i * minutes * MINUTE);

describe('queueHistory - the depth per bucket, replayed back from now', () => {
  it('undoes each later bucket’s net flow, and lists every bucket even without events', () => {
    const history = queueHistory(
      start,
      1,
      4,
      5,
      [
        { bucketStart: bucket(1), netQueued: 3 },
        { bucketStart: bucket(3), netQueued: -1 },
      ],
      [],
    );
    expect(history.map((b) => [b.bucketStart.getTime(), b.queuedAtEnd])).toEqual([
      [bucket(0).getTime(), 3],
      [bucket(1).getTime(), 6],
      [bucket(2).getTime(), 6],
      [bucket(3).getTime(), 5],
    ]);
    expect(history.every((b) => b.queueWait.count === 0)).toBe(true);
  });

  it('counts the events of a clock ahead of now() against the last bucket, and ignores those before the window', () => {
    const history = queueHistory(
      start,
      5,
      2,
      2,
      [
        { bucketStart: bucket(-1, 5), netQueued: 7 },
        { bucketStart: bucket(2, 5), netQueued: 1 },
      ],
      [],
    );
    expect(history.map((b) => b.queuedAtEnd)).toEqual([1, 1]);
  });

  it('places each bucket’s waits on it', () => {
    const waits = { count: 2, p50Ms: 10, p90Ms: 30, p99Ms: 30 };
    const history = queueHistory(start, 1, 3, 0, [], [{ bucketStart: bucket(1), queueWait: waits }]);
    expect(history.map((b) => b.queueWait.count)).toEqual([0, 2, 0]);
    expect(history[1]!.queueWait).toEqual(waits);
  });
});

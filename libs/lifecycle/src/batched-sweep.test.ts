import { afterEach, describe, expect, it, vi } from 'vitest';
import { BatchedSweep, sweepInBatches } from './index.js';

/** A backlog of `size` rows that batches take from the front. */
function backlog(size: number) {
  let left = Array.from({ length: size }, (_, index) => index);
  const statements: number[] = [];
  return {
    statements,
    take: async (limit: number) => {
      statements.push(limit);
      const rows = left.slice(0, limit);
      left = left.slice(limit);
      return rows;
    },
  };
}

describe('lifecycle - sweepInBatches', () => {
  it('passes each batch the cursor the last answered and ends at the first that says nothing more is due', async () => {
    const cursors: (number | null)[] = [];
    const counts: number[] = [];
    const total = await sweepInBatches<number>(
      async (cursor) => {
        cursors.push(cursor);
        const at = cursor ?? 0;
        return { count: 10, next: at < 20 ? at + 10 : null };
      },
      { onBatch: (count) => counts.push(count) },
    );
    expect(cursors).toEqual([null, 10, 20]);
    expect(counts).toEqual([10, 10, 10]);
    expect(total).toBe(30);
  });

  it('ends when a batch declines (another replica holds the turn), counting what went before', async () => {
    const batch = vi
      .fn<() => Promise<{ count: number; next: true | null } | null>>()
      .mockResolvedValueOnce({ count: 5, next: true })
      .mockResolvedValueOnce(null);
    expect(await sweepInBatches(batch)).toBe(5);
    expect(batch).toHaveBeenCalledTimes(2);
  });

  it('starts no batch after the signal aborts, and an abort cuts the pause short', async () => {
    const stopping = new AbortController();
    const batch = vi.fn(async () => {
      setTimeout(() => stopping.abort(), 10);
      return { count: 1, next: true as const };
    });
    const started = Date.now();
    expect(await sweepInBatches(batch, { signal: stopping.signal, pauseMs: 60_000 })).toBe(1);
    expect(batch).toHaveBeenCalledTimes(1);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe('lifecycle - batched sweep', () => {
  const warnings: { obj: object; msg: string }[] = [];
  const logger = { warn: (obj: object, msg: string) => warnings.push({ obj, msg }) };
  let sweep: BatchedSweep<number> | undefined;

  afterEach(async () => {
    vi.useRealTimers();
    await sweep?.stop();
    warnings.length = 0;
  });

  it('repeats the batch while one comes back full, and hands each non-empty batch on', async () => {
    const rows = backlog(7);
    const handled: number[][] = [];
    sweep = new BatchedSweep({
      name: 'sweeping',
      intervalMs: 1_000,
      batchSize: 3,
      logger,
      batch: rows.take,
      onBatch: (batch) => handled.push([...batch]),
    });
    expect(await sweep.runOnce()).toBe(7);
    expect(handled).toEqual([[0, 1, 2], [3, 4, 5], [6]]);
    expect(rows.statements).toEqual([3, 3, 3]);
  });

  it('asks once more after a full last batch, and hands an empty one to nobody', async () => {
    const rows = backlog(6);
    const onBatch = vi.fn();
    sweep = new BatchedSweep({ name: 'sweeping', intervalMs: 1_000, batchSize: 3, logger, batch: rows.take, onBatch });
    expect(await sweep.runOnce()).toBe(6);
    expect(rows.statements).toHaveLength(3);
    expect(onBatch).toHaveBeenCalledTimes(2);
  });

  it('sweeps every interval once started, logs a failed sweep by name and carries on', async () => {
    vi.useFakeTimers();
    const batch = vi
      .fn<(limit: number) => Promise<number[] | null>>()
      .mockRejectedValueOnce(new Error('database away'))
      .mockResolvedValue([]);
    sweep = new BatchedSweep({ name: 'stale sweep', intervalMs: 1_000, batchSize: 3, logger, batch, onBatch: () => {} });
    sweep.start();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(warnings).toEqual([
      { obj: expect.objectContaining({ task: 'stale sweep' }), msg: 'stale sweep failed; it runs again at the next interval' },
    ]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(batch).toHaveBeenCalledTimes(2);
    await sweep.stop();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(batch).toHaveBeenCalledTimes(2);
  });

  it('stops between two batches: the one under way finishes, no other starts', async () => {
    vi.useFakeTimers();
    let release!: () => void;
    const batch = vi.fn(() => new Promise<number[]>((resolve) => (release = () => resolve([1, 2, 3]))));
    sweep = new BatchedSweep({ name: 'sweeping', intervalMs: 1_000, batchSize: 3, logger, batch, onBatch: () => {} });
    sweep.start();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(batch).toHaveBeenCalledTimes(1);
    const stopped = sweep.stop();
    release();
    await stopped;
    expect(batch).toHaveBeenCalledTimes(1);
  });
});

import { describe, expect, it } from 'vitest';
import { MicroBatcher } from './micro-batcher.js';

describe('micro batcher - coalescing concurrent calls', () => {
  it('sends a lone call at once and batches calls that arrive while others run', async () => {
    const batches: number[][] = [];
    let release: () => void = () => {};
    const batcher = new MicroBatcher<number, number>(
      async (requests) => {
        batches.push(requests);
        if (batches.length === 1) await new Promise<void>((resolve) => (release = resolve));
        return requests.map((r) => r * 10);
      },
      { maxBatch: 3, maxConcurrent: 1 },
    );
    const first = batcher.submit(1);
    await Promise.resolve();
    const rest = [2, 3, 4, 5].map((n) => batcher.submit(n));
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(batches).toEqual([[1]]);
    release();
    expect(await Promise.all([first, ...rest])).toEqual([10, 20, 30, 40, 50]);
    expect(batches).toEqual([[1], [2, 3, 4], [5]]);
  });

  it('retries a failed batch one by one, so only the bad call fails', async () => {
    const batcher = new MicroBatcher<number, number>(
      async (requests) => {
        if (requests.includes(13)) throw new Error('13 is refused');
        return requests;
      },
      { maxBatch: 10, maxConcurrent: 1 },
    );
    const outcomes = await Promise.allSettled([batcher.submit(1), batcher.submit(13), batcher.submit(2)]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(await batcher.submit(3)).toBe(3);
  });
});

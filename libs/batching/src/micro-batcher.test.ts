import { describe, expect, it } from 'vitest';
import { UnavailableError } from '@atelier/errors';
import { MicroBatcher } from './micro-batcher.js';

/** Lets the event loop finish its turn: a batcher sends what was submitted in it. */
const endOfTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

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
    await endOfTurn();
    const rest = [2, 3, 4, 5].map((n) => batcher.submit(n));
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(batches).toEqual([[1]]);
    release();
    expect(await Promise.all([first, ...rest])).toEqual([10, 20, 30, 40, 50]);
    expect(batches).toEqual([[1], [2, 3, 4], [5]]);
  });

  it('sends the calls of one event-loop turn together, though each starts in a callback of its own', async () => {
    // Like the requests one socket read brings: each is handled in its own callback, with the
    // microtasks drained in between, and a free slot must not take the first one alone.
    const batches: number[][] = [];
    const batcher = new MicroBatcher<number, number>(
      async (requests) => {
        batches.push(requests);
        return requests;
      },
      { maxBatch: 10, maxConcurrent: 2 },
    );
    const calls = await new Promise<Promise<number>[]>((resolve) => {
      const made: Promise<number>[] = [];
      for (const n of [1, 2, 3]) setTimeout(() => made.push(batcher.submit(n)), 0);
      setTimeout(() => resolve(made), 0);
    });
    expect(await Promise.all(calls)).toEqual([1, 2, 3]);
    expect(batches).toEqual([[1, 2, 3]]);
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

describe('micro batcher - deadlines and bounds', () => {
  it('drops a queued call whose caller gave up or ran out of time, without running it', async () => {
    const ran: number[][] = [];
    let release: () => void = () => {};
    const batcher = new MicroBatcher<number, number>(
      async (requests) => {
        ran.push(requests);
        if (ran.length === 1) await new Promise<void>((resolve) => (release = resolve));
        return requests;
      },
      { maxBatch: 10, maxConcurrent: 1 },
    );
    const first = batcher.submit(1);
    await endOfTurn();
    const cancelled = new AbortController();
    const late = batcher.submit(2, AbortSignal.timeout(10));
    const gaveUp = batcher.submit(3, cancelled.signal);
    const patient = batcher.submit(4, AbortSignal.timeout(60_000));
    cancelled.abort();
    await new Promise((resolve) => setTimeout(resolve, 30));
    release();
    expect(await first).toBe(1);
    await expect(late).rejects.toMatchObject({ code: 'DEADLINE_EXCEEDED' });
    await expect(gaveUp).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(await patient).toBe(4);
    expect(ran).toEqual([[1], [4]]);
    await expect(batcher.submit(5, AbortSignal.abort())).rejects.toMatchObject({ code: 'CANCELLED' });
  });

  it('refuses a call at once, UNAVAILABLE, when too many are already waiting', async () => {
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => (open = resolve));
    const batcher = new MicroBatcher<number, number>(
      async (requests) => {
        await gate;
        return requests;
      },
      { maxBatch: 1, maxConcurrent: 1, maxQueued: 2 },
    );
    const running = batcher.submit(1);
    await endOfTurn();
    const queued = [batcher.submit(2), batcher.submit(3)];
    await expect(batcher.submit(4)).rejects.toMatchObject({ code: 'UNAVAILABLE', reason: 'OVERLOADED', retryAfterSeconds: 1 });
    open();
    expect(await Promise.all([running, ...queued])).toEqual([1, 2, 3]);
  });

  it('fails a whole batch alike when the database is away, without trying each call alone', async () => {
    let batches = 0;
    const batcher = new MicroBatcher<number, number>(
      async () => {
        batches += 1;
        throw new UnavailableError('the database is unavailable');
      },
      { maxBatch: 10, maxConcurrent: 1 },
    );
    const outcomes = await Promise.allSettled([batcher.submit(1), batcher.submit(2), batcher.submit(3)]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(batches).toBe(1);
  });
});

import { describe, expect, it } from 'vitest';
import { backoffDelayMs, retryWithBackoff } from './backoff.js';

const backoff = { baseMs: 2_000, maxMs: 60_000 };

describe('backoff - delays', () => {
  it('doubles from the base, up to the cap', () => {
    expect([1, 2, 3, 5, 6, 10].map((attempt) => backoffDelayMs(attempt, backoff, () => 0.5))).toEqual([
      2_000, 4_000, 8_000, 32_000, 60_000, 60_000,
    ]);
  });

  it('jitters ±20 % by default, or by the share asked', () => {
    expect(backoffDelayMs(1, backoff, () => 0)).toBe(1_600);
    expect(backoffDelayMs(1, backoff, () => 1)).toBe(2_400);
    expect(backoffDelayMs(1, { ...backoff, jitter: 0.5 }, () => 0)).toBe(1_000);
    expect(backoffDelayMs(1, { ...backoff, jitter: 0 }, () => 1)).toBe(2_000);
  });

  it('treats an attempt below 1 as the first', () => {
    expect(backoffDelayMs(0, backoff, () => 0.5)).toBe(2_000);
  });
});

describe('backoff - retries', () => {
  const options = { isTransient: (error: unknown) => (error as Error).message === 'transient', backoff: { baseMs: 1, maxMs: 2 } };

  it('tries again after a transient failure and answers what the work answered', async () => {
    let calls = 0;
    const retries: number[] = [];
    const answer = await retryWithBackoff(
      async (attempt) => {
        calls += 1;
        if (attempt < 3) throw new Error('transient');
        return 'done';
      },
      { ...options, onRetry: (_error, attempt) => retries.push(attempt) },
    );
    expect(answer).toBe('done');
    expect(calls).toBe(3);
    expect(retries).toEqual([1, 2]);
  });

  it('throws at once what is not transient, and the last failure once the attempts are spent', async () => {
    let calls = 0;
    await expect(
      retryWithBackoff(async () => {
        calls += 1;
        throw new Error('final');
      }, options),
    ).rejects.toThrow('final');
    expect(calls).toBe(1);
    await expect(
      retryWithBackoff(
        async () => {
          throw new Error('transient');
        },
        { ...options, maxAttempts: 2 },
      ),
    ).rejects.toThrow('transient');
  });

  it("stops waiting when the signal aborts, with the signal's reason", async () => {
    const controller = new AbortController();
    const retrying = retryWithBackoff(
      async () => {
        throw new Error('transient');
      },
      {
        ...options,
        backoff: { baseMs: 60_000, maxMs: 60_000 },
        signal: controller.signal,
        onRetry: () => controller.abort(new Error('stopped')),
      },
    );
    await expect(retrying).rejects.toThrow('stopped');
  });
});

import { describe, expect, it } from 'vitest';
import { ErrorCode } from '@atelier/errors';
import { CompletionGate } from './completion-gate.js';

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe('completion gate - one check per upload, a bounded number at once', () => {
  it('joins concurrent completions of the same upload into one check with one answer', async () => {
    const gate = new CompletionGate<string>(2);
    const release = deferred<string>();
    let checks = 0;
    const calls = Array.from({ length: 30 }, () =>
      gate.run('asset-1', () => {
        checks += 1;
        return release.promise;
      }),
    );
    release.resolve('ready');
    expect(await Promise.all(calls)).toEqual(Array(30).fill('ready'));
    expect(checks).toBe(1);
    // Once settled, a later completion checks again (the database then says it is ready).
    await gate.run('asset-1', async () => {
      checks += 1;
      return 'again';
    });
    expect(checks).toBe(2);
  });

  it('shares a refusal with every joined caller', async () => {
    const gate = new CompletionGate<string>(2);
    const results = await Promise.allSettled([1, 2, 3].map(() => gate.run('a', () => Promise.reject(new Error('not an image')))));
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
  });

  it('runs at most maxRunning checks at once and queues the rest', async () => {
    const gate = new CompletionGate<number>(2);
    const releases = Array.from({ length: 5 }, () => deferred<number>());
    let peak = 0;
    const calls = releases.map((release, i) =>
      gate.run(`asset-${i}`, () => {
        peak = Math.max(peak, gate.active);
        return release.promise;
      }),
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(gate.active).toBe(2);
    releases.forEach((release, i) => release.resolve(i));
    expect(await Promise.all(calls)).toEqual([0, 1, 2, 3, 4]);
    expect(peak).toBe(2);
  });

  it('refuses with UNAVAILABLE and a clear reason when no slot frees up in time', async () => {
    const gate = new CompletionGate<number>(1, 50);
    const hold = deferred<number>();
    const first = gate.run('a', () => hold.promise);
    const error = await gate.run('b', async () => 2).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ErrorCode.UNAVAILABLE, reason: 'UPLOAD_COMPLETIONS_BUSY', retryAfterSeconds: 1 });
    hold.resolve(1);
    expect(await first).toBe(1);
    expect(gate.active).toBe(0);
  });
});

// The cache of the pet service's answers against a fake pet service (a unit test): what it keeps,
// for how long, and what it never keeps.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { UnavailableError } from '@atelier/errors';
import type { PetDirectory } from './pet-directory.js';
import { PetVisibilityCache } from './pet-visibility-cache.js';

function fakePetService() {
  const visible = new Set<string>();
  const calls: string[] = [];
  let down = false;
  let gate: Promise<void> | undefined;
  const directory: PetDirectory = {
    async isVisible(userId, petId) {
      calls.push(`${userId}/${petId}`);
      const answer = visible.has(`${userId}/${petId}`);
      await gate;
      if (down) throw new UnavailableError('the pet service is down');
      return answer;
    },
  };
  return {
    directory,
    calls,
    share: (userId: string, petId: string) => visible.add(`${userId}/${petId}`),
    unshare: (userId: string, petId: string) => visible.delete(`${userId}/${petId}`),
    setDown: (value: boolean) => void (down = value),
    hold: () => {
      let release!: () => void;
      gate = new Promise((resolve) => (release = resolve));
      return () => {
        gate = undefined;
        release();
      };
    },
  };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('pet visibility cache - what it keeps', () => {
  it('asks the pet service once per user and pet while the answer is "visible"', async () => {
    const fake = fakePetService();
    fake.share('ana', 'p1');
    fake.share('ben', 'p1');
    const cache = new PetVisibilityCache(fake.directory, { ttlMs: 30_000, maxEntries: 100 });
    await expect(cache.isVisible('ana', 'p1')).resolves.toBe(true);
    await expect(cache.isVisible('ana', 'p1')).resolves.toBe(true);
    await expect(cache.isVisible('ben', 'p1'), 'another user is another question').resolves.toBe(true);
    expect(fake.calls).toEqual(['ana/p1', 'ben/p1']);
  });

  it('never keeps "not visible": a pet shared a moment later is visible at once', async () => {
    const fake = fakePetService();
    const cache = new PetVisibilityCache(fake.directory, { ttlMs: 30_000, maxEntries: 100 });
    await expect(cache.isVisible('ana', 'p1')).resolves.toBe(false);
    await expect(cache.isVisible('ana', 'p1')).resolves.toBe(false);
    fake.share('ana', 'p1');
    await expect(cache.isVisible('ana', 'p1')).resolves.toBe(true);
    expect(fake.calls).toEqual(['ana/p1', 'ana/p1', 'ana/p1']);
    expect(cache.size).toBe(1);
  });

  it('asks again after the TTL: a share revoked is refused within it', async () => {
    vi.useFakeTimers();
    const fake = fakePetService();
    fake.share('ana', 'p1');
    const cache = new PetVisibilityCache(fake.directory, { ttlMs: 30_000, maxEntries: 100 });
    await expect(cache.isVisible('ana', 'p1')).resolves.toBe(true);
    fake.unshare('ana', 'p1');
    vi.advanceTimersByTime(29_999);
    await expect(cache.isVisible('ana', 'p1'), 'still within the TTL').resolves.toBe(true);
    vi.advanceTimersByTime(1);
    await expect(cache.isVisible('ana', 'p1')).resolves.toBe(false);
    expect(fake.calls).toEqual(['ana/p1', 'ana/p1']);
  });

  it('keeps no error: while the pet service is down a confirmed pair is answered, any other fails as the service did', async () => {
    const fake = fakePetService();
    fake.share('ana', 'p1');
    fake.share('ana', 'p2');
    const cache = new PetVisibilityCache(fake.directory, { ttlMs: 30_000, maxEntries: 100 });
    await cache.isVisible('ana', 'p1');
    fake.setDown(true);
    await expect(cache.isVisible('ana', 'p1')).resolves.toBe(true);
    await expect(cache.isVisible('ana', 'p2')).rejects.toBeInstanceOf(UnavailableError);
    fake.setDown(false);
    await expect(cache.isVisible('ana', 'p2')).resolves.toBe(true);
    expect(fake.calls).toEqual(['ana/p1', 'ana/p2', 'ana/p2']);
  });

  it('shares one call among concurrent questions about one pair', async () => {
    const fake = fakePetService();
    fake.share('ana', 'p1');
    const cache = new PetVisibilityCache(fake.directory, { ttlMs: 30_000, maxEntries: 100 });
    const release = fake.hold();
    const answers = Array.from({ length: 10 }, () => cache.isVisible('ana', 'p1'));
    release();
    await expect(Promise.all(answers)).resolves.toEqual(Array(10).fill(true));
    expect(fake.calls).toEqual(['ana/p1']);
  });

  it('holds at most maxEntries pairs, the oldest dropped first', async () => {
    const fake = fakePetService();
    for (const pet of ['p1', 'p2', 'p3']) fake.share('ana', pet);
    const cache = new PetVisibilityCache(fake.directory, { ttlMs: 30_000, maxEntries: 2 });
    for (const pet of ['p1', 'p2', 'p3']) await cache.isVisible('ana', pet);
    expect(cache.size).toBe(2);
    await cache.isVisible('ana', 'p3');
    await cache.isVisible('ana', 'p1');
    expect(fake.calls).toEqual(['ana/p1', 'ana/p2', 'ana/p3', 'ana/p1']);
  });

  it('asks every time with a TTL of 0', async () => {
    const fake = fakePetService();
    fake.share('ana', 'p1');
    const cache = new PetVisibilityCache(fake.directory, { ttlMs: 0, maxEntries: 100 });
    await cache.isVisible('ana', 'p1');
    await cache.isVisible('ana', 'p1');
    expect(fake.calls).toEqual(['ana/p1', 'ana/p1']);
    expect(cache.size).toBe(0);
  });
});

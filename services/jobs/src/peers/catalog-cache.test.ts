// The cache against a fake catalog peer (a unit test): what it keeps, when it asks again.
import { describe, expect, it, vi } from 'vitest';
import { catalogV1 } from '@atelier/contracts';
import { NotFoundError, UnavailableError } from '@atelier/errors';
import { CatalogCache } from './catalog-cache.js';

function fakeCatalog() {
  const models = new Map<string, catalogV1.Model>();
  const calls: string[] = [];
  let down = false;
  let gate: Promise<void> | undefined;
  const catalog = {
    getModel: vi.fn(async ({ modelId }: { modelId: string }) => {
      calls.push(modelId);
      // Copied at once: the answer is what the catalog held when it was asked.
      const model = models.get(modelId);
      await gate;
      if (down) throw new UnavailableError('catalog is down');
      if (!model) throw new NotFoundError('model');
      return { model: { ...model } };
    }),
    getStyle: vi.fn(async ({ styleId }: { styleId: string }) => ({
      style: catalogV1.Style.fromPartial({ id: styleId, enabled: true }),
    })),
  };
  return {
    catalog,
    calls,
    put: (id: string, enabled: boolean) => models.set(id, catalogV1.Model.fromPartial({ id, enabled })),
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

describe('catalog cache - read-through', () => {
  it('asks catalog once per entry, then answers from memory', async () => {
    const fake = fakeCatalog();
    fake.put('m1', true);
    const cache = new CatalogCache(fake.catalog, { ttlMs: 30_000, maxEntries: 100 });
    await expect(cache.model('m1')).resolves.toMatchObject({ id: 'm1', enabled: true });
    await expect(cache.model('m1')).resolves.toMatchObject({ id: 'm1', enabled: true });
    await cache.style('s1');
    await cache.style('s1');
    expect(fake.calls).toEqual(['m1']);
    expect(fake.catalog.getStyle).toHaveBeenCalledTimes(1);
  });

  it('shares one request among concurrent misses of an entry', async () => {
    const fake = fakeCatalog();
    fake.put('m1', true);
    const cache = new CatalogCache(fake.catalog, { ttlMs: 30_000, maxEntries: 100 });
    await Promise.all(Array.from({ length: 10 }, () => cache.model('m1')));
    expect(fake.calls).toEqual(['m1']);
  });

  it('drops an entry on its change notice, and on a clear', async () => {
    const fake = fakeCatalog();
    fake.put('m1', true);
    const cache = new CatalogCache(fake.catalog, { ttlMs: 30_000, maxEntries: 100 });
    await cache.model('m1');
    fake.put('m1', false);
    await expect(cache.model('m1')).resolves.toMatchObject({ enabled: true });
    cache.invalidate({ kind: 'style', id: 'm1' });
    await expect(cache.model('m1'), 'a style of the same id is another entry').resolves.toMatchObject({ enabled: true });
    cache.invalidate({ kind: 'model', id: 'm1' });
    await expect(cache.model('m1')).resolves.toMatchObject({ enabled: false });
    fake.put('m1', true);
    cache.clear();
    await expect(cache.model('m1')).resolves.toMatchObject({ enabled: true });
    expect(fake.calls).toEqual(['m1', 'm1', 'm1']);
  });

  it('asks again once the TTL has passed, even without any notice (NATS away)', async () => {
    vi.useFakeTimers();
    try {
      const fake = fakeCatalog();
      fake.put('m1', true);
      const cache = new CatalogCache(fake.catalog, { ttlMs: 500, maxEntries: 100 });
      await cache.model('m1');
      fake.put('m1', false);
      vi.advanceTimersByTime(499);
      await expect(cache.model('m1')).resolves.toMatchObject({ enabled: true });
      vi.advanceTimersByTime(1);
      await expect(cache.model('m1')).resolves.toMatchObject({ enabled: false });
    } finally {
      vi.useRealTimers();
    }
  });

  it('does not store a read that was under way when its entry changed', async () => {
    const fake = fakeCatalog();
    fake.put('m1', true);
    const cache = new CatalogCache(fake.catalog, { ttlMs: 30_000, maxEntries: 100 });
    const release = fake.hold();
    const early = cache.model('m1');
    fake.put('m1', false);
    cache.invalidate({ kind: 'model', id: 'm1' });
    // A read after the notice does not join the read from before it.
    const late = cache.model('m1');
    release();
    await expect(early).resolves.toMatchObject({ enabled: true });
    await expect(late).resolves.toMatchObject({ enabled: false });
    await expect(cache.model('m1')).resolves.toMatchObject({ enabled: false });
    expect(fake.calls).toEqual(['m1', 'm1']);
  });

  it('keeps no error: NOT_FOUND and a catalog that is down are asked again on the next read', async () => {
    const fake = fakeCatalog();
    const cache = new CatalogCache(fake.catalog, { ttlMs: 30_000, maxEntries: 100 });
    await expect(cache.model('later')).rejects.toBeInstanceOf(NotFoundError);
    fake.put('later', true);
    await expect(cache.model('later')).resolves.toMatchObject({ id: 'later' });

    cache.clear();
    fake.setDown(true);
    await expect(cache.model('later')).rejects.toBeInstanceOf(UnavailableError);
    fake.setDown(false);
    await expect(cache.model('later')).resolves.toMatchObject({ id: 'later' });
  });

  it('holds at most maxEntries, and nothing with a TTL of 0', async () => {
    const fake = fakeCatalog();
    for (const id of ['a', 'b', 'c']) fake.put(id, true);
    const bounded = new CatalogCache(fake.catalog, { ttlMs: 30_000, maxEntries: 2 });
    for (const id of ['a', 'b', 'c']) await bounded.model(id);
    expect(bounded.size).toBe(2);
    const off = new CatalogCache(fake.catalog, { ttlMs: 0, maxEntries: 100 });
    await off.model('a');
    await off.model('a');
    expect(off.size).toBe(0);
    expect(fake.calls.filter((id) => id === 'a')).toHaveLength(3);
  });
});

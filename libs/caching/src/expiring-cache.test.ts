import { describe, expect, it } from 'vitest';
import { ExpiringCache } from './expiring-cache.js';

describe('ExpiringCache', () => {
  it('returns a value until its deadline and not after', () => {
    const cache = new ExpiringCache<string, number>(10);
    cache.set('a', 1, 1_000);
    expect(cache.get('a', 999)).toBe(1);
    expect(cache.get('a', 1_000)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('evicts the entry stored longest ago when full; a re-set counts as new', () => {
    const cache = new ExpiringCache<string, number>(2);
    cache.set('a', 1, Infinity);
    cache.set('b', 2, Infinity);
    cache.set('a', 10, Infinity);
    cache.set('c', 3, Infinity);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe(10);
    expect(cache.get('c')).toBe(3);
    expect(cache.size).toBe(2);
  });

  it('forgets every entry on clear', () => {
    const cache = new ExpiringCache<string, number>(4);
    cache.set('a', 1, Infinity);
    cache.set('b', 2, Infinity);
    cache.clear();
    expect([cache.get('a'), cache.get('b'), cache.size]).toEqual([undefined, undefined, 0]);
  });

  it('stores nothing with size 0, forgets on delete, and refuses a bad size', () => {
    const off = new ExpiringCache<string, number>(0);
    off.set('a', 1, Infinity);
    expect(off.get('a')).toBeUndefined();
    const cache = new ExpiringCache<string, number>(1);
    cache.set('a', 1, Infinity);
    cache.delete('a');
    expect(cache.get('a')).toBeUndefined();
    expect(() => new ExpiringCache(-1)).toThrow(/maxEntries/);
  });
});

import { describe, expect, it } from 'vitest';
import { Closers } from './index.js';

describe('lifecycle - closers', () => {
  it('closes the last registered first, each after the one before has finished, passing the grace', async () => {
    const closed: string[] = [];
    const closers = new Closers();
    closers.add('pool', () => closed.push('pool'));
    closers.add('peer clients', async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      closed.push('peer clients');
    });
    closers.add('server', (graceMs) => closed.push(`server ${graceMs}`));
    await closers.close(1_500);
    expect(closed).toEqual(['server 1500', 'peer clients', 'pool']);
  });

  it('goes on closing past one that fails, and names the failures at the end', async () => {
    const closed: string[] = [];
    const closers = new Closers();
    closers.add('pool', () => closed.push('pool'));
    closers.add('relay', () => Promise.reject(new Error('broker away')));
    closers.add('server', () => closed.push('server'));
    await expect(closers.close(0)).rejects.toThrow('closing failed: relay');
    expect(closed).toEqual(['server', 'pool']);
  });

  it('closes what was opened so far when an opening fails, and rethrows its error', async () => {
    const closed: string[] = [];
    const closers = new Closers();
    closers.add('pool', () => closed.push('pool'));
    closers.add('peer clients', () => closed.push('peer clients'));
    await expect(closers.opening(Promise.reject(new Error('the port is taken')))).rejects.toThrow('the port is taken');
    expect(closed).toEqual(['peer clients', 'pool']);
    expect(await closers.opening(Promise.resolve(42))).toBe(42);
  });
});

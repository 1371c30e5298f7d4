import { describe, expect, it } from 'vitest';
import { StreamSlots } from './stream-slots.js';

describe('StreamSlots', () => {
  it('refuses the stream above the ceiling of one user, not of another, and frees a slot on release', () => {
    const slots = new StreamSlots(2);
    const first = slots.acquire('alice');
    expect(slots.acquire('alice')).toBeDefined();
    expect(slots.acquire('alice')).toBeUndefined();
    expect(slots.acquire('bob')).toBeDefined();
    first!();
    first!(); // a second release of the same slot frees nothing more
    expect(slots.held('alice')).toBe(1);
    expect(slots.acquire('alice')).toBeDefined();
    expect(slots.acquire('alice')).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { monotonicUuidv7, uuidv7 } from './uuidv7.js';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('uuidv7', () => {
  it('is a version 7 UUID that starts with its millisecond', () => {
    const id = uuidv7(0x0123456789ab);
    expect(id).toMatch(UUID_V7);
    expect(id.startsWith('01234567-89ab-7')).toBe(true);
  });
});

describe('monotonicUuidv7', () => {
  it('sorts after every id made before it, within one millisecond and past the 4096 a millisecond holds', () => {
    const at = Date.now() + 60_000;
    const ids = Array.from({ length: 10_000 }, () => monotonicUuidv7(at));
    for (const id of ids) expect(id).toMatch(UUID_V7);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    // A clock that steps back does not reorder them either.
    const after = monotonicUuidv7(at - 5_000);
    expect(after > ids.at(-1)!).toBe(true);
  });
});

import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '@atelier/errors';
import { pageSize } from './index.js';

describe('page size - 1 to 100, 20 by default', () => {
  it('defaults 0 to 20 and allows 1–100', () => {
    expect(pageSize(0)).toBe(20);
    expect(pageSize(1)).toBe(1);
    expect(pageSize(100)).toBe(100);
  });

  it.each([101, -1, 2.5])('refuses %s as INVALID_ARGUMENT naming the field', (size) => {
    expect(() => pageSize(size)).toThrow(InvalidArgumentError);
    expect(() => pageSize(size)).toThrow('page_size');
    expect(() => pageSize(size, 'limit')).toThrow('limit');
  });
});

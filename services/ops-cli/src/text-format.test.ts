import { describe, expect, it } from 'vitest';
import { formatAge, oneLine, plural, table } from './text-format.js';

describe('text format - columns and durations', () => {
  it('aligns columns to the widest cell and leaves no trailing blanks', () => {
    expect(
      table(
        ['A', 'LONGER', ''],
        [
          ['wide cell', 'x', ''],
          ['b', 'yy', 'NOTE'],
        ],
      ),
    ).toEqual(['  A          LONGER', '  wide cell  x', '  b          yy      NOTE']);
  });

  it.each([
    [0, '-'],
    [850, '850ms'],
    [1_500, '1.5s'],
    [95_000, '1m 35s'],
    [2 * 3600_000 + 5 * 60_000, '2h 5m'],
    [50 * 3600_000, '2d 2h'],
  ])('formatAge(%d) = %s', (ms, text) => {
    expect(formatAge(ms)).toBe(text);
  });

  it('flattens and shortens free text for a table cell, and counts nouns', () => {
    expect(oneLine('503\n  no responders   available', 100)).toBe('503 no responders available');
    expect(oneLine('x'.repeat(20), 10)).toBe(`${'x'.repeat(9)}…`);
    expect([plural(1, 'event'), plural(2, 'event')]).toEqual(['1 event', '2 events']);
  });
});

import { describe, expect, it } from 'vitest';
import { encodeCursor, MAX_LIST_LIMIT, parseListQuery } from './list-query.js';

describe('provider-sim list query', () => {
  it('defaults to the whole history, from the start, 100 a page', () => {
    expect(parseListQuery({})).toEqual({ createdAfter: undefined, createdBefore: undefined, afterSequence: 0, limit: 100 });
  });

  it('reads a window, a cursor it issued and a limit', () => {
    const query = parseListQuery({
      created_after: '2026-12-03T21:00:00Z',
      created_before: '2026-12-03T22:00:00.500+01:00',
      cursor: encodeCursor(42),
      limit: '7',
    });
    expect(query).toEqual({
      createdAfter: new Date('2026-12-03T21:00:00Z'),
      createdBefore: new Date('2026-12-03T21:00:00.500Z'),
      afterSequence: 42,
      limit: 7,
    });
  });

  it.each([
    [{ created_after: 'yesterday' }, 'created_after'],
    [{ created_after: '2026-12-03T21:00:00' }, 'created_after'],
    [{ created_before: '2026-13-03T21:00:00Z' }, 'created_before'],
    [{ created_after: '2026-12-03T22:00:00Z', created_before: '2026-12-03T21:00:00Z' }, 'created_before'],
    [{ cursor: 'not-a-cursor' }, 'cursor'],
    [{ cursor: 'x'.repeat(100) }, 'cursor'],
    [{ limit: '0' }, 'limit'],
    [{ limit: String(MAX_LIST_LIMIT + 1) }, 'limit'],
    [{ limit: '1.5' }, 'limit'],
    [{ limit: ['1', '2'] }, 'limit'],
  ])('refuses %j with a 400 naming %s', (query, field) => {
    expect(() => parseListQuery(query)).toThrow(
      expect.objectContaining({ statusCode: 400, message: expect.stringMatching(new RegExp(`^${field}:`)) }),
    );
  });
});

import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '@atelier/errors';
import { decodePageToken, encodePageToken } from './page-token.js';

const token = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const id = '019a0000-0000-7000-8000-0000000000aa';

describe('community page tokens', () => {
  it('reads back the tokens it wrote', () => {
    const cursor = { at: new Date('2026-11-30T12:00:00.123Z'), id };
    expect(decodePageToken('feed', encodePageToken('feed', cursor))).toEqual(cursor);
  });

  it.each([
    ['garbage', 'not-a-token'],
    ['a token of the other listing', token({ o: 'mine', t: '2026-11-30T12:00:00Z', i: id })],
    ['an id of 36 dashes (not a UUID: Postgres would refuse it)', token({ o: 'feed', t: '2026-11-30T12:00:00Z', i: '-'.repeat(36) })],
    ['a year Postgres may not read back', token({ o: 'feed', t: '+275760-09-13T00:00:00Z', i: id })],
    ['a year before 1', token({ o: 'feed', t: '-000100-01-01T00:00:00Z', i: id })],
  ])('refuses %s as INVALID_ARGUMENT naming the field', (_what, value) => {
    expect(() => decodePageToken('feed', value)).toThrow(InvalidArgumentError);
    expect(() => decodePageToken('feed', value)).toThrow(/page_token/);
  });
});

import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '@atelier/errors';
import { decodePageToken, encodePageToken } from './page-token.js';

const token = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('jobs page tokens', () => {
  it('reads back the tokens it wrote', () => {
    const cursor = { createdMicros: '1764547200000000', id: '019a0000-0000-7000-8000-0000000000aa' };
    expect(decodePageToken(encodePageToken(cursor))).toEqual(cursor);
  });

  it.each([
    ['garbage', 'not-a-token'],
    ['an id of 36 dashes (not a UUID: Postgres would refuse it)', token({ c: '1', i: '-'.repeat(36) })],
    ['a time that is no number', token({ c: '1e5', i: '019a0000-0000-7000-8000-0000000000aa' })],
    ['JSON that is no object', token(null)],
  ])('refuses %s as INVALID_ARGUMENT naming the field', (_what, value) => {
    expect(() => decodePageToken(value)).toThrow(InvalidArgumentError);
    expect(() => decodePageToken(value)).toThrow(/page_token/);
  });
});

import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '@atelier/errors';
import { decodeListingPageToken, decodeMicrosPageToken, encodeListingPageToken, encodeMicrosPageToken } from './index.js';

const token = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const id = '019a0000-0000-7000-8000-0000000000aa';

function thrown(call: () => unknown): unknown {
  try {
    call();
  } catch (error) {
    return error;
  }
  throw new Error('nothing was thrown');
}

describe('page tokens - microsecond cursors (jobs)', () => {
  const cursor = { createdMicros: '1764547200000000', id };

  it('reads back the tokens it wrote, and an empty token as the first page', () => {
    expect(decodeMicrosPageToken(encodeMicrosPageToken(cursor))).toEqual(cursor);
    expect(decodeMicrosPageToken('')).toBeUndefined();
  });

  it('keeps the wire format of the tokens already handed out', () => {
    const issued = 'eyJjIjoiMTc2NDU0NzIwMDAwMDAwMCIsImkiOiIwMTlhMDAwMC0wMDAwLTcwMDAtODAwMC0wMDAwMDAwMDAwYWEifQ';
    expect(encodeMicrosPageToken(cursor)).toBe(issued);
    expect(decodeMicrosPageToken(issued)).toEqual(cursor);
  });

  it.each([
    ['garbage', 'not-a-token'],
    ['an id of 36 dashes (not a UUID: Postgres would refuse it)', token({ c: '1', i: '-'.repeat(36) })],
    ['a time that is no number', token({ c: '1e5', i: id })],
    ['JSON that is no object', token(null)],
    ['a listing token', encodeListingPageToken('feed', { at: new Date('2026-11-30T12:00:00Z'), id })],
  ])('refuses %s as INVALID_ARGUMENT naming the field', (_what, value) => {
    expect(thrown(() => decodeMicrosPageToken(value))).toBeInstanceOf(InvalidArgumentError);
    expect(thrown(() => decodeMicrosPageToken(value))).toMatchObject({ field: 'page_token' });
    expect(() => decodeMicrosPageToken(value)).toThrow('page_token: is not a token returned by a previous page');
  });
});

describe('page tokens - listing cursors (community)', () => {
  const cursor = { at: new Date('2026-11-30T12:00:00.123Z'), id };

  it('reads back the tokens it wrote, and an empty token as the first page', () => {
    expect(decodeListingPageToken('feed', encodeListingPageToken('feed', cursor))).toEqual(cursor);
    expect(decodeListingPageToken('feed', '')).toBeUndefined();
  });

  it('keeps the wire format of the tokens already handed out', () => {
    const feed = 'eyJvIjoiZmVlZCIsInQiOiIyMDI2LTExLTMwVDEyOjAwOjAwLjEyM1oiLCJpIjoiMDE5YTAwMDAtMDAwMC03MDAwLTgwMDAtMDAwMDAwMDAwMGFhIn0';
    const mine = 'eyJvIjoibWluZSIsInQiOiIyMDI2LTExLTMwVDEyOjAwOjAwLjEyM1oiLCJpIjoiMDE5YTAwMDAtMDAwMC03MDAwLTgwMDAtMDAwMDAwMDAwMGFhIn0';
    expect(encodeListingPageToken('feed', cursor)).toBe(feed);
    expect(encodeListingPageToken('mine', cursor)).toBe(mine);
    expect(decodeListingPageToken('mine', mine)).toEqual(cursor);
  });

  it.each([
    ['garbage', 'not-a-token'],
    ['a token of the other listing', token({ o: 'mine', t: '2026-11-30T12:00:00Z', i: id })],
    ['an id of 36 dashes (not a UUID: Postgres would refuse it)', token({ o: 'feed', t: '2026-11-30T12:00:00Z', i: '-'.repeat(36) })],
    ['a year Postgres may not read back', token({ o: 'feed', t: '+275760-09-13T00:00:00Z', i: id })],
    ['a year before 1', token({ o: 'feed', t: '-000100-01-01T00:00:00Z', i: id })],
    ['JSON that is no object', token(null)],
    ['a microsecond token', encodeMicrosPageToken({ createdMicros: '1764547200000000', id })],
  ])('refuses %s as INVALID_ARGUMENT naming the field', (_what, value) => {
    expect(thrown(() => decodeListingPageToken('feed', value))).toBeInstanceOf(InvalidArgumentError);
    expect(thrown(() => decodeListingPageToken('feed', value))).toMatchObject({ field: 'page_token' });
    expect(() => decodeListingPageToken('feed', value)).toThrow('page_token: is not a token returned by a previous page of this listing');
  });
});

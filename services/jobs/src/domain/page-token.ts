import { InvalidArgumentError } from '@atelier/errors';
import { isUuid } from '@atelier/validation';

/**
 * Where the previous page ended in (created_at DESC, id DESC) order. The time is kept in whole
 * microseconds since the epoch — Postgres' own precision — because a JavaScript Date would
 * round it to milliseconds and make rows of the same millisecond skip a page.
 */
export interface PageCursor {
  createdMicros: string;
  id: string;
}

export function encodePageToken(cursor: PageCursor): string {
  return Buffer.from(JSON.stringify({ c: cursor.createdMicros, i: cursor.id })).toString('base64url');
}

/** An opaque token from a previous page; anything else is the client's mistake. */
export function decodePageToken(token: string, field = 'page_token'): PageCursor | undefined {
  if (!token) return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { c?: unknown; i?: unknown };
    if (typeof parsed.i !== 'string' || !isUuid(parsed.i) || typeof parsed.c !== 'string' || !/^\d{1,18}$/.test(parsed.c)) {
      throw new Error('shape');
    }
    return { createdMicros: parsed.c, id: parsed.i };
  } catch {
    throw new InvalidArgumentError(field, 'is not a token returned by a previous page');
  }
}

/** 1–100; 0 means the default of 20. */
export function pageSize(requested: number, field = 'page_size'): number {
  if (requested === 0) return 20;
  if (!Number.isInteger(requested) || requested < 1 || requested > 100) throw new InvalidArgumentError(field, 'must be between 1 and 100');
  return requested;
}

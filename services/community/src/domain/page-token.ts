import { InvalidArgumentError } from '@atelier/errors';
import { isUuid } from '@atelier/validation';

/**
 * Where the previous page ended: the sort timestamp (published_at for the feed, created_at for
 * an author's posts) and the id that breaks ties.
 */
export interface PageCursor {
  at: Date;
  id: string;
}

/** Which listing a token belongs to: a feed token handed to ListMyPosts is refused, not misread. */
export type PageOrder = 'feed' | 'mine';

export function encodePageToken(order: PageOrder, cursor: PageCursor): string {
  return Buffer.from(JSON.stringify({ o: order, t: cursor.at.toISOString(), i: cursor.id })).toString('base64url');
}

/** An opaque token from a previous page of the same listing; anything else is the client's mistake. */
export function decodePageToken(order: PageOrder, token: string, field = 'page_token'): PageCursor | undefined {
  if (!token) return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { o?: unknown; t?: unknown; i?: unknown };
    const at = new Date(String(parsed.t));
    // Years outside 1–9999 are valid JavaScript dates that Postgres may refuse or misread.
    const year = at.getUTCFullYear();
    if (parsed.o !== order || typeof parsed.i !== 'string' || !isUuid(parsed.i) || Number.isNaN(at.getTime()) || year < 1 || year > 9999) {
      throw new Error('shape');
    }
    return { at, id: parsed.i };
  } catch {
    throw new InvalidArgumentError(field, 'is not a token returned by a previous page of this listing');
  }
}

/** 1–100; 0 means the default of 20. */
export function pageSize(requested: number, field = 'page_size'): number {
  if (requested === 0) return 20;
  if (!Number.isInteger(requested) || requested < 1 || requested > 100) throw new InvalidArgumentError(field, 'must be between 1 and 100');
  return requested;
}

import { InvalidArgumentError } from '@atelier/errors';
import { isUuid } from '@atelier/validation';

/*
 * Page tokens are opaque to clients: base64url of a small JSON object naming where the previous
 * page ended in (time DESC, id DESC) order. Two formats, because the tables differ; both are on
 * the wire in tokens already handed out, so neither may change.
 */

function encodeToken(fields: Record<string, string>): string {
  return Buffer.from(JSON.stringify(fields)).toString('base64url');
}

/** The token's fields; throws on anything that is not base64url of a JSON object. */
function tokenFields(token: string): Record<string, unknown> {
  const parsed: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  if (!parsed || typeof parsed !== 'object') throw new Error('shape');
  return parsed as Record<string, unknown>;
}

/**
 * A cursor in whole microseconds since the epoch (jobs: timestamptz columns, Postgres' own
 * precision) — a JavaScript Date would round it to milliseconds and make rows of the same
 * millisecond skip a page. Wire: `{"c":"<micros>","i":"<uuid>"}`.
 */
export interface MicrosPageCursor {
  createdMicros: string;
  id: string;
}

export function encodeMicrosPageToken(cursor: MicrosPageCursor): string {
  return encodeToken({ c: cursor.createdMicros, i: cursor.id });
}

/** The cursor of a token from a previous page, or undefined for none (the first page); anything else is the client's mistake. */
export function decodeMicrosPageToken(token: string, field = 'page_token'): MicrosPageCursor | undefined {
  if (!token) return undefined;
  try {
    const { c, i } = tokenFields(token);
    if (typeof i !== 'string' || !isUuid(i) || typeof c !== 'string' || !/^\d{1,18}$/.test(c)) throw new Error('shape');
    return { createdMicros: c, id: i };
  } catch {
    throw new InvalidArgumentError(field, 'is not a token returned by a previous page');
  }
}

/**
 * A cursor in milliseconds (community: timestamptz(3) columns, which a Date holds exactly) that
 * names its listing, so that a token of one listing handed to another is refused, not misread.
 * Wire: `{"o":"<listing>","t":"<ISO 8601>","i":"<uuid>"}`.
 */
export interface ListingPageCursor {
  at: Date;
  id: string;
}

export function encodeListingPageToken(listing: string, cursor: ListingPageCursor): string {
  return encodeToken({ o: listing, t: cursor.at.toISOString(), i: cursor.id });
}

/** The cursor of a token from a previous page of the same listing, or undefined for none; anything else is the client's mistake. */
export function decodeListingPageToken(listing: string, token: string, field = 'page_token'): ListingPageCursor | undefined {
  if (!token) return undefined;
  try {
    const { o, t, i } = tokenFields(token);
    const at = new Date(String(t));
    // Years outside 1–9999 are valid JavaScript dates that Postgres may refuse or misread.
    const year = at.getUTCFullYear();
    if (o !== listing || typeof i !== 'string' || !isUuid(i) || Number.isNaN(at.getTime()) || year < 1 || year > 9999) {
      throw new Error('shape');
    }
    return { at, id: i };
  } catch {
    throw new InvalidArgumentError(field, 'is not a token returned by a previous page of this listing');
  }
}

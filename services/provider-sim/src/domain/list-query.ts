import { invalidRequest } from './api-error.js';

/** Page size of `GET /v1/predictions` when the caller names none, and the most it may ask for. */
export const DEFAULT_LIST_LIMIT = 100;
export const MAX_LIST_LIMIT = 500;
const MAX_CURSOR_LENGTH = 64;

/** A validated `GET /v1/predictions` query: a window of creation times and a place in it. */
export interface ListQuery {
  /** Included: predictions created at or after it. */
  createdAfter: Date | undefined;
  /** Excluded: predictions created before it. */
  createdBefore: Date | undefined;
  /** The store sequence of the last prediction of the previous page (0: from the start). */
  afterSequence: number;
  limit: number;
}

// RFC 3339, as Replicate's list accepts it: a date-time with a zone (Z or ±hh:mm).
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;

function single(query: Record<string, unknown>, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw invalidRequest(name, 'must be given once');
  return value;
}

function dateTime(query: Record<string, unknown>, name: string): Date | undefined {
  const raw = single(query, name);
  if (raw === undefined) return undefined;
  const parsed = new Date(raw);
  if (!RFC3339.test(raw) || Number.isNaN(parsed.getTime())) {
    throw invalidRequest(name, 'must be an RFC 3339 date-time with a zone, e.g. 2026-12-03T21:00:00Z');
  }
  return parsed;
}

/** The cursor is opaque to clients: the sequence number of the last prediction a page returned. */
export function encodeCursor(sequence: number): string {
  return Buffer.from(`s${sequence}`).toString('base64url');
}

function decodeCursor(raw: string): number {
  const text = raw.length <= MAX_CURSOR_LENGTH ? Buffer.from(raw, 'base64url').toString() : '';
  const match = /^s(\d{1,15})$/.exec(text);
  if (!match) throw invalidRequest('cursor', 'is not a cursor this API returned (take it from "next")');
  return Number(match[1]);
}

/** Parses the query string; a bad parameter is a 400 naming it. Unknown parameters are ignored, as vendors do. */
export function parseListQuery(query: Record<string, unknown>): ListQuery {
  const createdAfter = dateTime(query, 'created_after');
  const createdBefore = dateTime(query, 'created_before');
  if (createdAfter && createdBefore && createdBefore.getTime() < createdAfter.getTime()) {
    throw invalidRequest('created_before', 'must not be before created_after');
  }
  const cursor = single(query, 'cursor');
  const rawLimit = single(query, 'limit');
  let limit = DEFAULT_LIST_LIMIT;
  if (rawLimit !== undefined) {
    if (!/^\d{1,4}$/.test(rawLimit) || Number(rawLimit) < 1 || Number(rawLimit) > MAX_LIST_LIMIT) {
      throw invalidRequest('limit', `must be an integer from 1 to ${MAX_LIST_LIMIT}`);
    }
    limit = Number(rawLimit);
  }
  return { createdAfter, createdBefore, afterSequence: cursor === undefined || cursor === '' ? 0 : decodeCursor(cursor), limit };
}

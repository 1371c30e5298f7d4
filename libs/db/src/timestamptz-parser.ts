import pg from 'pg';

const TIMESTAMPTZ = pg.types.builtins.TIMESTAMPTZ;
/** node-postgres's own parser (postgres-date): every shape the fast path below does not read. */
const libraryParser = pg.types.getTypeParser(TIMESTAMPTZ, 'text') as (text: string) => Date | number | null;

const ZERO = 48;

/** The value of the `count` decimal digits at `from`, or -1 if any of them is not a digit. */
function digitsAt(text: string, from: number, count: number): number {
  let value = 0;
  for (let i = from; i < from + count; i += 1) {
    const digit = text.charCodeAt(i) - ZERO;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}

/**
 * A timestamptz in Postgres's text form under DateStyle ISO — `2026-12-05 19:52:19.686123+00`,
 * the fraction optional, the offset `±HH`, `±HH:MM` or `±HH:MM:SS` — read digit by digit into
 * the same Date node-postgres's parser makes (milliseconds truncated, as it truncates them).
 * Every other shape — a year before 100 or past 9999, BC, `infinity` — goes to that parser. Why
 * a parser of our own: the jobs service reads eight of these per job row, and postgres-date's
 * three regular expressions per value were 3 % of its CPU at 3 000 jobs a second.
 */
export function parseTimestamptz(text: string): Date | number | null {
  const length = text.length;
  if (length < 22 || text.charCodeAt(4) !== 45 /* - */ || text.charCodeAt(7) !== 45 || text.charCodeAt(10) !== 32 /* space */) {
    return libraryParser(text);
  }
  const year = digitsAt(text, 0, 4);
  const month = digitsAt(text, 5, 2);
  const day = digitsAt(text, 8, 2);
  const hour = digitsAt(text, 11, 2);
  const minute = digitsAt(text, 14, 2);
  const second = digitsAt(text, 17, 2);
  if (year < 100 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0) return libraryParser(text);
  if (text.charCodeAt(13) !== 58 /* : */ || text.charCodeAt(16) !== 58) return libraryParser(text);
  let at = 19;
  let milliseconds = 0;
  if (text.charCodeAt(at) === 46 /* . */) {
    at += 1;
    // The first three digits are the milliseconds; the microseconds after them are dropped.
    for (let place = 100; at < length; at += 1, place = Math.trunc(place / 10)) {
      const digit = text.charCodeAt(at) - ZERO;
      if (digit < 0 || digit > 9) break;
      milliseconds += digit * place;
    }
  }
  const sign = text.charCodeAt(at);
  if (sign !== 43 /* + */ && sign !== 45 /* - */) return libraryParser(text);
  const rest = length - at - 1;
  if (rest !== 2 && rest !== 5 && rest !== 8) return libraryParser(text);
  const offsetHours = digitsAt(text, at + 1, 2);
  const offsetMinutes = rest >= 5 && text.charCodeAt(at + 3) === 58 ? digitsAt(text, at + 4, 2) : rest === 2 ? 0 : -1;
  const offsetSeconds = rest === 8 && text.charCodeAt(at + 6) === 58 ? digitsAt(text, at + 7, 2) : rest < 8 ? 0 : -1;
  if (offsetHours < 0 || offsetMinutes < 0 || offsetSeconds < 0) return libraryParser(text);
  const offsetMs = (sign === 45 ? -1 : 1) * ((offsetHours * 60 + offsetMinutes) * 60 + offsetSeconds) * 1000;
  return new Date(Date.UTC(year, month - 1, day, hour, minute, second, milliseconds) - offsetMs);
}

/** The type parsers every pool of createSqlPool uses: node-postgres's, but for timestamptz. */
export const sqlPoolTypes = new pg.TypeOverrides();
sqlPoolTypes.setTypeParser(TIMESTAMPTZ, 'text', parseTimestamptz);

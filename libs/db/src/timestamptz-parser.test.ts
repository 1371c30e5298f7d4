import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '@atelier/testing';
import { createSqlPool, type SqlPool } from './index.js';
import { parseTimestamptz } from './timestamptz-parser.js';

const libraryParser = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ, 'text') as (text: string) => Date | number | null;

/** The value as a comparable figure: a Date's epoch milliseconds, or the number or null itself. */
const asFigure = (value: Date | number | null) => (value instanceof Date ? value.getTime() : value);

describe('db - parseTimestamptz', () => {
  let database: TestDatabase;
  let pool: SqlPool;

  beforeAll(async () => {
    database = await createTestDatabase();
    pool = createSqlPool({ databaseUrl: database.url, applicationName: 'timestamptz-test', max: 1 });
  });

  afterAll(async () => {
    await pool.end();
    await database.drop();
  });

  // Postgres's own text of each value, in zones with whole-hour, half-hour and historic
  // seconds-long offsets, read both ways: the fast path must give node-postgres's Date exactly.
  it.each(['UTC', 'Europe/Berlin', 'America/St_Johns', 'Asia/Kathmandu', 'Europe/Amsterdam', 'Pacific/Kiritimati'])(
    'reads Postgres text in %s as node-postgres does',
    async (zone) => {
      const { rows } = await pool.query<{ text: string }>(
        `SELECT set_config('TimeZone', $1, false), v::text AS text
           FROM unnest(ARRAY[
             now(), '2026-12-05 19:52:19.686123+00', '2026-12-05 19:52:19+00', '2026-12-05 19:52:19.1+00',
             '2026-12-05 19:52:19.000999+00', '2026-12-05 19:52:19.999999+00', '2024-02-29 23:59:59.5+00',
             '1900-01-01 00:00:00+00', '1912-03-01 12:00:00+00', '0100-01-01 00:00:00+00', '9999-12-31 23:59:59.999999+00',
             '0050-06-01 00:00:00+00', '0044-03-15 12:00:00 BC', '10000-01-01 00:00:00+00', 'infinity', '-infinity'
           ]::timestamptz[]) AS v`,
        [zone],
      );
      for (const { text } of rows) expect(asFigure(parseTimestamptz(text)), text).toEqual(asFigure(libraryParser(text)));
    },
  );

  it('truncates every fraction as node-postgres does', () => {
    for (let microseconds = 0; microseconds < 1_000_000; microseconds += 7) {
      const fraction = String(microseconds).padStart(6, '0').replace(/0+$/, '');
      const text = `2026-12-05 19:52:19${fraction ? `.${fraction}` : ''}+05:30`;
      expect(asFigure(parseTimestamptz(text))).toBe(asFigure(libraryParser(text)));
    }
  });

  it('hands every other shape to node-postgres', () => {
    for (const text of ['2026-12-05', '2026-12-05 19:52:19', '2026-12-05T19:52:19Z', '2026-12-05 19:52:19+1', 'x026-12-05 19:52:19+00']) {
      expect(asFigure(parseTimestamptz(text)), text).toEqual(asFigure(libraryParser(text)));
    }
  });

  it('is what a pool of createSqlPool reads timestamptz columns with', async () => {
    const { rows } = await pool.query<{ at: Date }>(`SELECT '2026-12-05 19:52:19.686123+00'::timestamptz AS at`);
    expect(rows[0]!.at).toBeInstanceOf(Date);
    expect(rows[0]!.at.toISOString()).toBe('2026-12-05T19:52:19.686Z');
  });
});

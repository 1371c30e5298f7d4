import type pg from 'pg';

/**
 * The `CHECK (column BETWEEN a AND b)` constraints of a table in a migrated database, by name, as
 * `[a, b]`: for tests that hold a migration's numbers (history, never edited) to the constant in
 * code that owns the rule. Postgres keeps BETWEEN as `((column >= a) AND (column <= b))`.
 */
export async function rangeChecksOf(db: Pick<pg.Client, 'query'>, table: string): Promise<Record<string, [number, number]>> {
  const { rows } = await db.query<{ name: string; definition: string }>(
    `SELECT conname AS name, pg_get_constraintdef(oid) AS definition FROM pg_constraint WHERE conrelid = $1::regclass AND contype = 'c'`,
    [table],
  );
  const ranges: Record<string, [number, number]> = {};
  for (const { name, definition } of rows) {
    const bounds = /^CHECK \(\(\((\w+) >= (-?\d+)\) AND \(\1 <= (-?\d+)\)\)\)$/.exec(definition);
    if (bounds) ranges[name] = [Number(bounds[2]), Number(bounds[3])];
  }
  return ranges;
}

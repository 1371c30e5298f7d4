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

/**
 * The declared lengths of a table's `varchar(n)` columns in a migrated database, by column, as n:
 * for tests that hold a migration's column sizes (history, never edited) to the limit in code
 * that owns the bound (`@atelier/validation`'s limits.ts).
 */
export async function columnLengthsOf(db: Pick<pg.Client, 'query'>, table: string): Promise<Record<string, number>> {
  const [schema, name] = table.split('.');
  const { rows } = await db.query<{ column: string; length: number }>(
    `SELECT column_name AS column, character_maximum_length AS length FROM information_schema.columns
      WHERE table_schema = $1 AND table_name = $2 AND character_maximum_length IS NOT NULL`,
    [schema, name],
  );
  if (rows.length === 0) throw new Error(`${table} has no columns of a declared length (is the table migrated, and named schema.table?)`);
  return Object.fromEntries(rows.map(({ column, length }) => [column, Number(length)]));
}

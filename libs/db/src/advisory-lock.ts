import type { Queryable } from './sql-pool.js';

/**
 * Serialises, until the transaction ends, every transaction that locks the same `scope` and
 * `key` (a per-user counter: count, then insert, without two writers overshooting a limit — the
 * second waits for the first to commit, then counts its row). The lock is a transaction-level
 * advisory lock on a 64-bit hash of `scope:key`; call it inside a transaction.
 */
export async function lockForTransaction(db: Queryable, scope: string, key: string): Promise<void> {
  await db.query({
    name: 'atelier.advisory_xact_lock',
    text: 'SELECT pg_advisory_xact_lock(hashtextextended($1, 0))',
    values: [`${scope}:${key}`],
  });
}

/**
 * lockForTransaction for many keys of one scope in one statement: the same locks (a key locked
 * here excludes it locked there), taken in the order of their hashes, so that two transactions
 * locking overlapping sets never wait for each other in a circle (no deadlock). The sorted
 * subquery is not flattened into the outer query (it has ORDER BY and DISTINCT), so the locks
 * are taken row by row in that order.
 */
export async function lockAllForTransaction(
  db: Queryable,
  scope: string,
  keys: readonly string[],
  /**
   * Settings for the rest of the transaction (set_config(…, true)), made in the same round trip:
   * a transaction that locks first and then needs a setting pays no statement of its own for it.
   */
  localSettings: Readonly<Record<string, string>> = {},
): Promise<void> {
  if (keys.length === 0 && Object.keys(localSettings).length === 0) return;
  await db.query(lockAllStatement(scope, keys, localSettings));
}

/** The statement lockAllForTransaction runs, for a caller that sends it with others (inPipelinedTransaction). */
export function lockAllStatement(
  scope: string,
  keys: readonly string[],
  localSettings: Readonly<Record<string, string>> = {},
): { name: string; text: string; values: unknown[] } {
  const settings = Object.entries(localSettings);
  return {
    name: `atelier.advisory_xact_lock_all${settings.length > 0 ? `_set_${settings.length}` : ''}`,
    text: `SELECT (SELECT count(pg_advisory_xact_lock(h))
                     FROM (SELECT DISTINCT hashtextextended($1::text || ':' || k, 0) AS h FROM unnest($2::text[]) AS k ORDER BY h) sorted)
                  ${settings.map((_, i) => `, set_config($${3 + 2 * i}::text, $${4 + 2 * i}::text, true)`).join('')}`,
    values: [scope, keys, ...settings.flat()],
  };
}

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

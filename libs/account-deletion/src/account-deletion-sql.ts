import type { Queryable } from '@atelier/db';
import type { AccountDeletionsTable } from './account-deletions-table.js';

/** A service's progress record of deleting one user's account, whichever kind its table is. */
export interface AccountDeletionRecord {
  user_id: string;
  deletion_id: string;
  /** When the service's part started; where the row is the request (jobs), when it was requested. */
  started_at: Date;
  completed_at: Date | null;
  removed: number;
}

const tableOf = (table: AccountDeletionsTable) => `${table.schema}.account_deletions`;

/** The columns under the record's names. */
const recordColumns = ({ columns }: AccountDeletionsTable) =>
  `user_id, deletion_id, ${columns.startedAt} AS started_at, ${columns.completedAt} AS completed_at, ${columns.removed} AS removed`;

export async function selectAccountDeletion(
  db: Queryable,
  table: AccountDeletionsTable,
  userId: string,
): Promise<AccountDeletionRecord | undefined> {
  const { rows } = await db.query<AccountDeletionRecord>({
    name: `${table.schema}.select_account_deletion`,
    text: `SELECT ${recordColumns(table)} FROM ${tableOf(table)} WHERE user_id = $1`,
    values: [userId],
  });
  return rows[0];
}

/**
 * Whether the user's account is being (or was) deleted. A service reads it under the same per-user
 * lock its part starts under, before it writes anything of the user: what it writes after the
 * start is refused.
 */
export async function accountDeletionStarted(db: Queryable, table: AccountDeletionsTable, userId: string): Promise<boolean> {
  return (await selectAccountDeletion(db, table, userId)) !== undefined;
}

/** Starts the service's part (an event-started table): the row, or the one a first delivery wrote. */
export async function startAccountDeletion(
  db: Queryable,
  table: AccountDeletionsTable,
  event: { userId: string; deletionId: string },
): Promise<AccountDeletionRecord> {
  const { rows } = await db.query<AccountDeletionRecord>({
    name: `${table.schema}.insert_account_deletion`,
    text: `INSERT INTO ${tableOf(table)} (user_id, deletion_id) VALUES ($1, $2)
           ON CONFLICT (user_id) DO UPDATE SET user_id = EXCLUDED.user_id
           RETURNING ${recordColumns(table)}`,
    values: [event.userId, event.deletionId],
  });
  return rows[0]!;
}

/** Counts `count` more of the user's data gone, in the transaction that deleted it. */
export async function countRemoved(db: Queryable, table: AccountDeletionsTable, userId: string, count: number): Promise<void> {
  const removed = table.columns.removed;
  await db.query({
    name: `${table.schema}.count_account_deletion_removed`,
    text: `UPDATE ${tableOf(table)} SET ${removed} = ${removed} + $2 WHERE user_id = $1`,
    values: [userId, count],
  });
}

/**
 * Marks the part done unless `remainingSql` (a query of the user's data, the user id as $1) still
 * finds some; answers whether it is done.
 */
export async function completeAccountDeletion(
  db: Queryable,
  table: AccountDeletionsTable,
  userId: string,
  remainingSql: string,
): Promise<boolean> {
  const completedAt = table.columns.completedAt;
  const { rowCount } = await db.query({
    name: `${table.schema}.complete_account_deletion`,
    text: `UPDATE ${tableOf(table)} SET ${completedAt} = coalesce(${completedAt}, now())
            WHERE user_id = $1 AND NOT EXISTS (${remainingSql})`,
    values: [userId],
  });
  return (rowCount ?? 0) > 0;
}

import { inTransaction, type Queryable, type SqlPool } from '@atelier/db';
import { AbortedError } from '@atelier/errors';
import { requireUserId } from '@atelier/validation';
import type { AccountDeleted } from './account-deleted-event.js';
import type { DeleteUserData } from './account-deletion-consumer.js';
import {
  completeAccountDeletion,
  countRemoved,
  selectAccountDeletion,
  startAccountDeletion,
  type AccountDeletionRecord,
} from './account-deletion-sql.js';
import type { AccountDeletionsTable } from './account-deletions-table.js';

/** What a service deletes of a user, in its own SQL: the rest of its part is the kit's. */
export interface AccountDeletionPart {
  /** The service (for messages). */
  service: string;
  table: AccountDeletionsTable;
  /**
   * The per-user lock the service's writes of the user take, in the caller's transaction: the part
   * starts under it, so that what was written before is swept and what comes after is refused
   * (the writes read accountDeletionStarted under the same lock). An event-started table only.
   */
  lockUser?(db: Queryable, userId: string): Promise<void>;
  /** Work before the sweep, outside the kit's transactions (jobs cancels the jobs in flight). */
  beforeSweep?(event: AccountDeleted): Promise<void>;
  /**
   * Deletes up to `limit` of what is left of the user, in the kit's transaction (rolled back if it
   * throws); answers how many it deleted: 0 once nothing is left that can go now.
   */
  deleteBatch(db: Queryable, userId: string, limit: number): Promise<number>;
  batchSize: number;
  /** A query that finds a row while any of the user's data ($1: the user id) remains: done once none. */
  remainingSql: string;
  /** Deletes what goes last, in the transaction that completes the part (community: the author's handle). */
  lastly?(db: Queryable, userId: string): Promise<void>;
  /** Said when something remains after the sweep, what and why (the event comes back for it). */
  remains: string;
}

/**
 * The batches and the remaining query of a part that deletes a user's rows of one table, keyed by
 * `id` (what hangs off them goes with them, ON DELETE CASCADE). `deletable`, a condition on the
 * rows, leaves some to another step: they still count as remaining. A row another transaction
 * holds is skipped, and found again by the next delivery.
 */
export function rowsOfUser(options: {
  table: string;
  userColumn: string;
  deletable?: string;
}): Pick<AccountDeletionPart, 'deleteBatch' | 'remainingSql'> {
  const { table, userColumn, deletable } = options;
  const text = `DELETE FROM ${table}
                 WHERE id IN (SELECT id FROM ${table} WHERE ${userColumn} = $1${deletable ? ` AND ${deletable}` : ''}
                               ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED)`;
  return {
    deleteBatch: async (db, userId, limit) =>
      (await db.query({ name: `${table}.delete_rows_of_user`, text, values: [userId, limit] })).rowCount ?? 0,
    remainingSql: `SELECT 1 FROM ${table} WHERE ${userColumn} = $1`,
  };
}

/**
 * A service's part of deleting an account, for its AccountDeletionConsumer: the progress record
 * first, then batches of the service's data, each deleted and counted in one transaction, then —
 * once nothing remains — the record completed. Each step finds only what is left, so a run cut
 * short resumes, and a completed part is not run again.
 *
 * Where the record is the request (jobs), it was written with the event and is not started here:
 * an event that names no request of the user's is forged (anyone able to publish on the subject
 * could) and is ignored.
 */
export function accountDeletionOf(
  part: AccountDeletionPart,
  context: { pool: SqlPool; logger: { warn(fields: object, message: string): void } },
): DeleteUserData {
  const { pool } = context;
  const { table } = part;
  return async (event) => {
    const record = await recordOf(part, pool, event);
    if (!record) {
      context.logger.warn(
        { deletionId: event.deletionId, service: part.service },
        `an account deletion event ${part.service} has no request for: ignoring it`,
      );
      return;
    }
    if (record.completed_at) return;
    await part.beforeSweep?.(event);
    for (;;) {
      const deleted = await inTransaction(pool, async (client) => {
        const count = await part.deleteBatch(client, event.userId, part.batchSize);
        if (count > 0) await countRemoved(client, table, event.userId, count);
        return count;
      });
      if (deleted === 0) break;
    }
    const completed = await inTransaction(pool, async (client) => {
      if (!(await completeAccountDeletion(client, table, event.userId, part.remainingSql))) return false;
      await part.lastly?.(client, event.userId);
      return true;
    });
    if (!completed)
      throw new AbortedError(
        'ACCOUNT_DELETION_UNFINISHED',
        `${part.service}: ${part.remains}; the account deletion event comes back and the deletion resumes`,
      );
  };
}

/**
 * The record the part works under: started now (under the service's lock; a repeat finds the
 * first), or the request the event names, undefined when there is none.
 */
async function recordOf(part: AccountDeletionPart, pool: SqlPool, event: AccountDeleted): Promise<AccountDeletionRecord | undefined> {
  if (part.table.startedBy === 'event')
    return inTransaction(pool, async (client) => {
      await part.lockUser?.(client, event.userId);
      return startAccountDeletion(client, part.table, event);
    });
  const request = await selectAccountDeletion(pool, part.table, event.userId);
  return request?.deletion_id === event.deletionId ? request : undefined;
}

/** A service's answer for its part (GetAccountDeletion): not started, working, or done. */
export function accountDeletionPartOf(record: AccountDeletionRecord | undefined): {
  started: boolean;
  completedAt: Date | undefined;
  removed: number;
} {
  return { started: record !== undefined, completedAt: record?.completed_at ?? undefined, removed: record?.removed ?? 0 };
}

/** GetAccountDeletion of a service whose part starts with the event: its part for the user asked about. */
export function getAccountDeletionPart(pool: SqlPool, table: AccountDeletionsTable) {
  return async (request: { userId: string }) => ({
    part: accountDeletionPartOf(await selectAccountDeletion(pool, table, requireUserId(request.userId, 'user_id'))),
  });
}

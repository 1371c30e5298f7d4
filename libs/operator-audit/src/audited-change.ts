import { inTransaction, type SqlClient, type SqlPool } from '@atelier/db';
import { ErrorCode, isAppError } from '@atelier/errors';
import type { OperatorActor } from './operator-actor.js';
import { insertAuditEntry } from './operator-audit-sql.js';

/** What an operator asks for, as the audit names it. */
export interface AuditedAction {
  /** e.g. "job.retry", "catalog.model.upsert" (docs/operator-audit.md). */
  action: string;
  actor: OperatorActor;
  /** e.g. "job:<id>", "model:<code>". */
  target: string;
}

/** What a change did: its result, and the target before and after it where an edit has them. */
export interface AuditedOutcome<T> {
  result: T;
  before?: object | null;
  after?: object | null;
  /** The target by the name the change found for it (a code for an entry asked by id); absent: the action's. */
  target?: string;
}

// Refusals a caller caused: the action was looked at and turned down, which the trail shows. A
// database or peer failure is not an outcome of the action (nothing was decided) and the write
// would likely fail the same way.
const REFUSALS: ReadonlySet<string> = new Set([
  ErrorCode.INVALID_ARGUMENT,
  ErrorCode.NOT_FOUND,
  ErrorCode.ALREADY_EXISTS,
  ErrorCode.FAILED_PRECONDITION,
  ErrorCode.RESOURCE_EXHAUSTED,
  ErrorCode.PERMISSION_DENIED,
]);

/**
 * Runs `change` in a transaction and writes its audit entry (outcome "ok") in the same one: the
 * change and its trail commit together or not at all. A refusal (change threw a domain refusal)
 * rolls the change back and is written on its own with its reason as the outcome; then it is
 * thrown on. A refusal that cannot be written is still answered: the caller learns why its action
 * failed, and nothing changed that the trail would miss.
 */
export async function auditedChange<T>(
  pool: SqlPool,
  schema: string,
  action: AuditedAction,
  change: (tx: SqlClient) => Promise<AuditedOutcome<T>>,
): Promise<T> {
  try {
    return await inTransaction(pool, async (tx) => {
      const outcome = await change(tx);
      await insertAuditEntry(tx, schema, {
        ...action,
        target: outcome.target ?? action.target,
        outcome: 'ok',
        before: outcome.before ?? null,
        after: outcome.after ?? null,
      });
      return outcome.result;
    });
  } catch (error) {
    if (isAppError(error) && REFUSALS.has(error.code)) {
      await insertAuditEntry(pool, schema, { ...action, outcome: refusalOutcome(error.reason, error.code) }).catch(() => undefined);
    }
    throw error;
  }
}

/** What a refused action's entry says: the refusal's stable reason, else its code. */
export function refusalOutcome(reason: string | undefined, code: string): string {
  return (reason ?? code).slice(0, 64);
}

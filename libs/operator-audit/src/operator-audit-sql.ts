import type { Queryable } from '@atelier/db';
import { monotonicUuidv7 } from '@atelier/db';
import type { OperatorActor } from './operator-actor.js';
import { checkedSchema } from './operator-audit-table.js';

/** One action to write: what, by whom, to what, how it ended, and the target around an edit. */
export interface AuditEntryInput {
  action: string;
  actor: OperatorActor;
  target: string;
  /** "ok", or the reason of the refusal. */
  outcome: string;
  before?: object | null;
  after?: object | null;
}

/** A row of `<schema>.operator_audit`, snapshots as JSON text. */
export interface AuditEntryRow {
  id: string;
  occurred_at: Date;
  action: string;
  actor_subject: string;
  actor_role: string;
  route: string;
  target: string;
  outcome: string;
  before_json: string | null;
  after_json: string | null;
}

/** The checked filters of a listing (audit-query.ts). */
export interface AuditFilter {
  pageSize: number;
  beforeId: string | null;
  action: string | null;
  subject: string | null;
  target: string | null;
  outcome: string | null;
  since: Date | null;
}

/** Writes one entry on `db`: inside the caller's transaction when the action changed something. */
export async function insertAuditEntry(db: Queryable, schema: string, entry: AuditEntryInput): Promise<string> {
  const id = monotonicUuidv7();
  await db.query(
    `INSERT INTO ${checkedSchema(schema)}.operator_audit (id, action, actor_subject, actor_role, route, target, outcome, before, after)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9::jsonb)`,
    [
      id,
      entry.action,
      entry.actor.subject,
      entry.actor.role,
      entry.actor.route,
      entry.target,
      entry.outcome,
      entry.before ? JSON.stringify(entry.before) : null,
      entry.after ? JSON.stringify(entry.after) : null,
    ],
  );
  return id;
}

/**
 * A page of entries, newest first, keyset-paged on the id (UUIDv7: time order, and Postgres
 * compares uuids byte by byte). One more row than asked says whether older ones match.
 */
export async function selectAuditEntries(
  db: Queryable,
  schema: string,
  filter: AuditFilter,
): Promise<{ rows: AuditEntryRow[]; hasMore: boolean }> {
  const { rows } = await db.query<AuditEntryRow>(
    `SELECT id, occurred_at, action, actor_subject, actor_role, route, target, outcome,
            before::text AS before_json, after::text AS after_json
       FROM ${checkedSchema(schema)}.operator_audit
      WHERE ($1::uuid IS NULL OR id < $1::uuid)
        AND ($2::text IS NULL OR action = $2)
        AND ($3::text IS NULL OR actor_subject = $3)
        AND ($4::text IS NULL OR target = $4)
        AND ($5::text IS NULL OR outcome = $5)
        AND ($6::timestamptz IS NULL OR occurred_at >= $6)
      ORDER BY id DESC
      LIMIT $7`,
    [filter.beforeId, filter.action, filter.subject, filter.target, filter.outcome, filter.since, filter.pageSize + 1],
  );
  return { rows: rows.slice(0, filter.pageSize), hasMore: rows.length > filter.pageSize };
}

import type { commonV1 } from '@atelier/contracts';
import type { Queryable } from '@atelier/db';
import { auditFilterOf, toAuditEntryMessage } from './audit-query.js';
import { selectAuditEntries } from './operator-audit-sql.js';

/** One page of `service`'s audit log (schema `schema`), as both services' ListAuditEntries answer it. */
export async function listAuditEntries(
  db: Queryable,
  schema: string,
  service: string,
  query: commonV1.AuditQuery | undefined,
): Promise<{ entries: commonV1.AuditEntry[]; hasMore: boolean }> {
  const { rows, hasMore } = await selectAuditEntries(db, schema, auditFilterOf(query));
  return { entries: rows.map((row) => toAuditEntryMessage(row, service)), hasMore };
}

/**
 * The operators' audit log (docs/operator-audit.md): each service that takes operator actions
 * keeps `<schema>.operator_audit` beside the data those actions change, so an action and its
 * entry commit in one transaction. Append-only in the database; read through ListAuditEntries.
 */
export { operatorAuditTableSql, MAX_AUDIT_SNAPSHOT_BYTES } from './operator-audit-table.js';
export { requireOperatorActor, ACTOR_ROLES, type ActorRole, type OperatorActor } from './operator-actor.js';
export { insertAuditEntry, selectAuditEntries, type AuditEntryInput, type AuditEntryRow, type AuditFilter } from './operator-audit-sql.js';
export { auditedChange, refusalOutcome, type AuditedAction, type AuditedOutcome } from './audited-change.js';
export { auditFilterOf, toAuditEntryMessage } from './audit-query.js';
export { listAuditEntries } from './list-audit-entries.js';

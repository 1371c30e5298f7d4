import type { commonV1 } from '@atelier/contracts';
import { InvalidArgumentError } from '@atelier/errors';
import { isUuid, requireNoNul } from '@atelier/validation';
import type { AuditEntryRow, AuditFilter } from './operator-audit-sql.js';
import { MAX_AUDIT_ACTION_LENGTH, MAX_AUDIT_OUTCOME_LENGTH, MAX_AUDIT_TARGET_LENGTH } from './operator-audit-table.js';

const DEFAULT_PAGE_SIZE = 20;
const MAX_PAGE_SIZE = 100;

function optionalFilter(value: string, field: string, maxLength: number): string | null {
  const text = requireNoNul(value.trim(), field);
  if (text.length > maxLength) throw new InvalidArgumentError(field, `must be at most ${maxLength} characters`);
  return text === '' ? null : text;
}

/** A ListAuditEntries query, checked (INVALID_ARGUMENT naming the field otherwise). */
export function auditFilterOf(query: commonV1.AuditQuery | undefined): AuditFilter {
  const q = query ?? { pageSize: 0, beforeId: '', action: '', subject: '', target: '', outcome: '', since: undefined };
  if (!Number.isInteger(q.pageSize) || q.pageSize < 0 || q.pageSize > MAX_PAGE_SIZE) {
    throw new InvalidArgumentError('query.page_size', `must be between 1 and ${MAX_PAGE_SIZE} (0: ${DEFAULT_PAGE_SIZE})`);
  }
  if (q.beforeId !== '' && !isUuid(q.beforeId)) throw new InvalidArgumentError('query.before_id', 'must be an audit entry id (a UUID)');
  if (q.since !== undefined && Number.isNaN(q.since.getTime())) throw new InvalidArgumentError('query.since', 'must be a time');
  return {
    pageSize: q.pageSize === 0 ? DEFAULT_PAGE_SIZE : q.pageSize,
    beforeId: q.beforeId === '' ? null : q.beforeId.toLowerCase(),
    action: optionalFilter(q.action, 'query.action', MAX_AUDIT_ACTION_LENGTH),
    subject: optionalFilter(q.subject, 'query.subject', 128),
    target: optionalFilter(q.target, 'query.target', MAX_AUDIT_TARGET_LENGTH),
    outcome: optionalFilter(q.outcome, 'query.outcome', MAX_AUDIT_OUTCOME_LENGTH),
    since: q.since ?? null,
  };
}

/** A row as the contract's AuditEntry of `service`. */
export function toAuditEntryMessage(row: AuditEntryRow, service: string): commonV1.AuditEntry {
  return {
    id: row.id,
    occurredAt: row.occurred_at,
    service,
    action: row.action,
    actor: { subject: row.actor_subject, role: row.actor_role, route: row.route },
    target: row.target,
    outcome: row.outcome,
    beforeJson: row.before_json ?? undefined,
    afterJson: row.after_json ?? undefined,
  };
}

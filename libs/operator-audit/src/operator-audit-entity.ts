/**
 * The MikroORM entity of a service's audit table (operatorAuditTableSql builds it), on an entry
 * point of its own (`@atelier/operator-audit/entity`): only migration runs and tests load the ORM.
 */
import { defineEntity, p } from '@atelier/orm';
import {
  MAX_AUDIT_ACTION_LENGTH,
  MAX_AUDIT_OUTCOME_LENGTH,
  MAX_AUDIT_ROUTE_LENGTH,
  MAX_AUDIT_SNAPSHOT_BYTES,
  MAX_AUDIT_TARGET_LENGTH,
  checkedSchema,
} from './operator-audit-table.js';

/**
 * The table as an entity, a new one per call: each service's ORM discovers its own. The triggers
 * are raw DDL as Postgres prints it (see jobs' generation_jobs entity on why), so the schema
 * check compares them; their function comes from the migration. The TRUNCATE trigger is left
 * out: MikroORM 7.2 does not read statement triggers back (operator-audit.integration.test.ts
 * shows it refuses).
 */
export function operatorAuditEntity(schema: string) {
  const s = checkedSchema(schema);
  return defineEntity({
    name: 'OperatorAudit',
    tableName: 'operator_audit',
    properties: {
      id: p.uuid().primary(),
      occurredAt: p.datetime().defaultRaw('now()'),
      action: p.string().length(MAX_AUDIT_ACTION_LENGTH),
      actorSubject: p.string().length(128),
      actorRole: p.string().length(16),
      route: p.string().length(MAX_AUDIT_ROUTE_LENGTH),
      target: p.string().length(MAX_AUDIT_TARGET_LENGTH),
      outcome: p.string().length(MAX_AUDIT_OUTCOME_LENGTH),
      before: p.json<Record<string, unknown>>().nullable(),
      after: p.json<Record<string, unknown>>().nullable(),
    },
    indexes: [
      { name: 'operator_audit_action_idx', properties: ['action', 'id'] },
      { name: 'operator_audit_target_idx', properties: ['target', 'id'] },
      { name: 'operator_audit_subject_idx', properties: ['actorSubject', 'id'] },
    ],
    triggers: [
      {
        name: 'operator_audit_no_change',
        timing: 'before',
        events: ['update', 'delete'],
        forEach: 'row',
        expression: `CREATE TRIGGER operator_audit_no_change BEFORE DELETE OR UPDATE ON ${s}.operator_audit FOR EACH ROW EXECUTE FUNCTION ${s}.operator_audit_append_only()`,
      },
    ],
    checks: [
      { name: 'operator_audit_role_known', expression: `actor_role IN ('viewer', 'operator', 'admin', 'super_admin', 'cli')` },
      {
        name: 'operator_audit_snapshots_bounded',
        expression: `coalesce(octet_length(before::text), 0) <= ${MAX_AUDIT_SNAPSHOT_BYTES} AND coalesce(octet_length(after::text), 0) <= ${MAX_AUDIT_SNAPSHOT_BYTES}`,
      },
    ],
  });
}

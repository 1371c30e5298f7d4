/** A schema name the audit SQL may be written for (it is put into statements as it is). */
const SCHEMA = /^[a-z][a-z0-9_]{0,62}$/;

export function checkedSchema(schema: string): string {
  if (!SCHEMA.test(schema)) throw new Error(`not a plain schema name: ${schema}`);
  return schema;
}

/** Longest action name, target and route (docs/operator-audit.md). */
export const MAX_AUDIT_ACTION_LENGTH = 64;
export const MAX_AUDIT_TARGET_LENGTH = 200;
export const MAX_AUDIT_ROUTE_LENGTH = 200;
export const MAX_AUDIT_OUTCOME_LENGTH = 64;
/** The JSON of a target before or after an edit: a catalog entry at its largest (16 KiB of default parameters, localized texts) fits. */
export const MAX_AUDIT_SNAPSHOT_BYTES = 65_536;

/**
 * The table `<schema>.operator_audit`: one row per operator action, written in the transaction of
 * its change. Append-only in the database itself: a trigger refuses every UPDATE, DELETE and
 * TRUNCATE, so no code path, ours or a future one, can rewrite the trail; no API lists more than
 * reads. Ids are UUIDv7, so entries of several services' logs merge in time order by id. Nothing
 * a user wrote goes in: targets are ids and codes, snapshots are catalog entries and operator
 * settings. Released migrations build it from this: never change it; a new shape is a new
 * function and new migrations.
 */
export function operatorAuditTableSql(schema: string): string[] {
  const s = checkedSchema(schema);
  return [
    `CREATE TABLE ${s}.operator_audit (
       id            uuid          PRIMARY KEY,
       occurred_at   timestamptz   NOT NULL DEFAULT now(),
       action        varchar(${MAX_AUDIT_ACTION_LENGTH})   NOT NULL,
       actor_subject varchar(128)  NOT NULL,
       actor_role    varchar(16)   NOT NULL
                                   CONSTRAINT operator_audit_role_known CHECK (actor_role IN ('viewer', 'operator', 'admin', 'super_admin', 'cli')),
       route         varchar(${MAX_AUDIT_ROUTE_LENGTH})  NOT NULL,
       target        varchar(${MAX_AUDIT_TARGET_LENGTH})  NOT NULL,
       outcome       varchar(${MAX_AUDIT_OUTCOME_LENGTH})   NOT NULL,
       before        jsonb,
       after         jsonb,
       CONSTRAINT operator_audit_snapshots_bounded
         CHECK (coalesce(octet_length(before::text), 0) <= ${MAX_AUDIT_SNAPSHOT_BYTES} AND coalesce(octet_length(after::text), 0) <= ${MAX_AUDIT_SNAPSHOT_BYTES})
     )`,
    `CREATE INDEX operator_audit_action_idx ON ${s}.operator_audit (action, id)`,
    `CREATE INDEX operator_audit_target_idx ON ${s}.operator_audit (target, id)`,
    `CREATE INDEX operator_audit_subject_idx ON ${s}.operator_audit (actor_subject, id)`,
    `CREATE FUNCTION ${s}.operator_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       RAISE EXCEPTION '${s}.operator_audit is append-only: % is not allowed', TG_OP USING ERRCODE = 'insufficient_privilege';
     END $$`,
    `CREATE TRIGGER operator_audit_no_change BEFORE UPDATE OR DELETE ON ${s}.operator_audit
       FOR EACH ROW EXECUTE FUNCTION ${s}.operator_audit_append_only()`,
    `CREATE TRIGGER operator_audit_no_truncate BEFORE TRUNCATE ON ${s}.operator_audit
       FOR EACH STATEMENT EXECUTE FUNCTION ${s}.operator_audit_append_only()`,
  ];
}

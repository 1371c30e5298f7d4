/** A schema name the outbox SQL may be written for (it is put into statements as it is). */
const SCHEMA = /^[a-z][a-z0-9_]{0,62}$/;

export function checkedSchema(schema: string): string {
  if (!SCHEMA.test(schema)) throw new Error(`not a plain schema name: ${schema}`);
  return schema;
}

/** The channel a schema's outbox wakes its relays on (a NOTIFY at the commit of each write). */
export const outboxChannel = (schema: string) => `${checkedSchema(schema)}_outbox`;

/**
 * The table `<schema>.outbox` the relay of this lib reads (jobs.outbox's shape, without its trace
 * context): a row per message, written in the transaction of the fact it announces, published with
 * Nats-Msg-Id = dedupe_key. Released migrations (media 0005, community 0004) build it from this:
 * never change it; a new shape is a new function and new migrations.
 */
export function outboxTableSql(schema: string): string[] {
  const s = checkedSchema(schema);
  return [
    `CREATE TABLE ${s}.outbox (
       id            bigint        GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
       aggregate_id  uuid          NOT NULL,
       event_type    varchar(64)   NOT NULL,
       subject       varchar(255)  NOT NULL,
       dedupe_key    varchar(255)  NOT NULL CONSTRAINT outbox_dedupe_key_key UNIQUE,
       payload       jsonb         NOT NULL CONSTRAINT outbox_payload_object CHECK (jsonb_typeof(payload) = 'object'),
       status        varchar(16)   NOT NULL DEFAULT 'pending'
                                   CONSTRAINT outbox_status_known CHECK (status IN ('pending', 'processing', 'published', 'dead')),
       attempt_count integer       NOT NULL DEFAULT 0 CONSTRAINT outbox_attempts_positive CHECK (attempt_count >= 0),
       available_at  timestamptz   NOT NULL DEFAULT now(),
       locked_by     varchar(220),
       locked_at     timestamptz,
       last_error    varchar(1000),
       created_at    timestamptz   NOT NULL DEFAULT now(),
       published_at  timestamptz,
       CONSTRAINT outbox_lock_while_processing CHECK ((status = 'processing') = (locked_by IS NOT NULL) AND (locked_by IS NULL) = (locked_at IS NULL)),
       CONSTRAINT outbox_published_at CHECK ((status = 'published') = (published_at IS NOT NULL))
     )`,
    `CREATE INDEX outbox_due_idx ON ${s}.outbox (available_at, id) WHERE status = 'pending'`,
    `CREATE INDEX outbox_processing_idx ON ${s}.outbox (locked_at) WHERE status = 'processing'`,
    `CREATE INDEX outbox_dead_idx ON ${s}.outbox (id) WHERE status = 'dead'`,
    `CREATE INDEX outbox_published_idx ON ${s}.outbox (published_at) WHERE status = 'published'`,
  ];
}

import { Migration } from '@atelier/orm';

/**
 * The audit of operators' outbox replays: one row per ReplayOutboxEvent call, whatever it found,
 * written in the transaction that decides it (db/outbox-replay-sql.ts). outbox_id has no foreign
 * key: a call for an id that never existed is audited too, and the row outlives the event.
 */
export class OutboxReplays extends Migration {
  override up(): void {
    this.addSql(`
      CREATE TABLE jobs.outbox_replays (
        id          bigint       GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        outbox_id   bigint       NOT NULL,
        operator_id varchar(128) NOT NULL,
        result      varchar(16)  NOT NULL CONSTRAINT outbox_replays_result_known CHECK (result IN ('replayed', 'not_dead', 'not_found')),
        replayed_at timestamptz  NOT NULL DEFAULT now()
      )`);
  }
}

import { outboxTableSql } from '@atelier/outbox';
import { Migration } from '@atelier/orm';

/**
 * media.outbox: the product events media owns (creation_upload_completed), written in the
 * transaction that completes the upload and published to NATS by its relay (libs/outbox).
 */
export class Outbox extends Migration {
  override up(): void {
    for (const statement of outboxTableSql('media')) this.addSql(statement);
  }
}

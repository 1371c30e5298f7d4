import { outboxTableSql } from '@atelier/outbox';
import { Migration } from '@atelier/orm';

/**
 * community.outbox: the product events community owns (creation_draft_created,
 * creation_post_published), written in the transaction that creates or publishes the post and
 * published to NATS by its relay (libs/outbox).
 */
export class Outbox extends Migration {
  override up(): void {
    for (const statement of outboxTableSql('community')) this.addSql(statement);
  }
}

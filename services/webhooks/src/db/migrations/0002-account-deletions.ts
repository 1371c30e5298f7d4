import { accountDeletionsTable, accountDeletionsTableSql } from '@atelier/account-deletion';
import { Migration } from '@atelier/orm';

/**
 * Webhooks' part of deleting accounts: a row per user once the deletion event reached webhooks
 * (from then on the user's new endpoints are refused), completed_at once their endpoints, with
 * their deliveries and attempts, are gone. user_id is all that is kept of the user.
 */
export class AccountDeletions extends Migration {
  override up(): void {
    this.addSql(accountDeletionsTableSql(accountDeletionsTable('webhooks')));
  }
}

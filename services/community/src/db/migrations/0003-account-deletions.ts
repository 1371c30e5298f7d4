import { accountDeletionsTable, accountDeletionsTableSql } from '@atelier/account-deletion';
import { Migration } from '@atelier/orm';

/**
 * Community's part of deleting accounts: a row per user once the deletion event reached
 * community (from then on the user's new posts are refused), completed_at once their posts and
 * handle are gone. user_id is all that is kept of the user.
 */
export class AccountDeletions extends Migration {
  override up(): void {
    this.addSql(accountDeletionsTableSql(accountDeletionsTable('community')));
  }
}

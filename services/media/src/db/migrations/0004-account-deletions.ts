import { accountDeletionsTable, accountDeletionsTableSql } from '@atelier/account-deletion';
import { Migration } from '@atelier/orm';

/**
 * Media's part of deleting accounts: a row per user once the deletion event reached media (from
 * then on the user's uploads and server assets are refused), completed_at once every object and
 * row of the user is gone. user_id is all that is kept of the user.
 */
export class AccountDeletions extends Migration {
  override up(): void {
    this.addSql(accountDeletionsTableSql(accountDeletionsTable('media')));
  }
}

import { accountDeletionRequestsTable, accountDeletionsTableSql } from '@atelier/account-deletion';
import { Migration } from '@atelier/orm';

/**
 * Requests to delete a user's account (RequestAccountDeletion), one per user for ever: the row is
 * written with the AccountDeletedEvent in its outbox in one transaction, and from then on the
 * user's creates are refused. jobs_completed_at marks the jobs service's own part (in-flight jobs
 * cancelled, the user's jobs deleted) done. user_id is all that is kept of the user: it refuses
 * the creates of an account that no longer exists.
 */
export class AccountDeletions extends Migration {
  override up(): void {
    this.addSql(accountDeletionsTableSql(accountDeletionRequestsTable('jobs', 'jobs')));
  }
}

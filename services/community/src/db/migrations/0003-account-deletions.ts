import { Migration } from '@atelier/orm';

/**
 * Community's part of deleting accounts: a row per user once the deletion event reached
 * community (from then on the user's new posts are refused), completed_at once their posts and
 * handle are gone. user_id is all that is kept of the user.
 */
export class AccountDeletions extends Migration {
  override up(): void {
    this.addSql(`
      CREATE TABLE community.account_deletions (
        user_id      varchar(128) PRIMARY KEY,
        deletion_id  uuid         NOT NULL,
        started_at   timestamptz  NOT NULL DEFAULT now(),
        completed_at timestamptz,
        removed      integer      NOT NULL DEFAULT 0 CONSTRAINT account_deletions_removed_positive CHECK (removed >= 0)
      )`);
  }
}

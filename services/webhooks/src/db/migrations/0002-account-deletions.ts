import { Migration } from '@atelier/orm';

/**
 * Webhooks' part of deleting accounts: a row per user once the deletion event reached webhooks
 * (from then on the user's new endpoints are refused), completed_at once their endpoints, with
 * their deliveries and attempts, are gone. user_id is all that is kept of the user.
 */
export class AccountDeletions extends Migration {
  override up(): void {
    this.addSql(`
      CREATE TABLE webhooks.account_deletions (
        user_id      varchar(128) PRIMARY KEY,
        deletion_id  uuid         NOT NULL,
        started_at   timestamptz  NOT NULL DEFAULT now(),
        completed_at timestamptz,
        removed      integer      NOT NULL DEFAULT 0 CONSTRAINT account_deletions_removed_positive CHECK (removed >= 0)
      )`);
  }
}

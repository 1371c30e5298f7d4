import { Migration } from '@atelier/orm';

/**
 * Which users a generation quota refused, for the operators' overview: one row per user,
 * allowance and period (the UTC day for daily and in_flight, the UTC month for monthly), written
 * when CreateJob refuses (db/quota-hits-sql.ts; a repeat within the period writes nothing). The
 * key leads with (allowance, period_start), so the overview counts a period's users on it. Rows
 * of ended periods are pruned by retention; a user's rows go with their account.
 */
export class QuotaHits extends Migration {
  override up(): void {
    this.addSql(`
      CREATE TABLE jobs.quota_hits (
        allowance    varchar(16)  NOT NULL CONSTRAINT quota_hits_allowance_known CHECK (allowance IN ('daily', 'monthly', 'in_flight')),
        period_start timestamptz  NOT NULL,
        user_id      varchar(128) NOT NULL,
        first_hit_at timestamptz  NOT NULL DEFAULT now(),
        CONSTRAINT quota_hits_pkey PRIMARY KEY (allowance, period_start, user_id)
      )`);
  }
}

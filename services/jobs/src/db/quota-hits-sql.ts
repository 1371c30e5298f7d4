import type { Queryable } from '@atelier/db';
import type { QuotaAllowance } from '../domain/quota.js';
import { START_OF_UTC_DAY, START_OF_UTC_MONTH } from './quota-usage-sql.js';

/**
 * jobs.quota_hits: which users a quota allowance refused in its current period, for the
 * operators' overview (migration 0013). The period is the window the allowance counts over, in
 * the database's clock like the counts: the UTC month for the monthly allowance, the UTC day for
 * the daily one and for the in-flight one (which has no window of its own; a day is what the
 * overview shows beside the daily figure).
 */
const PERIOD_START = `CASE WHEN allowance = 'monthly' THEN ${START_OF_UTC_MONTH} ELSE ${START_OF_UTC_DAY} END`;

/**
 * Records that `allowance` refused the user, once per period: a repeat finds the row and writes
 * nothing (ON CONFLICT DO NOTHING on the key), so a client retrying in a loop costs an index
 * probe, not a row.
 */
export async function insertQuotaHit(db: Queryable, userId: string, allowance: QuotaAllowance): Promise<void> {
  await db.query({
    name: 'jobs.insert_quota_hit',
    text: `INSERT INTO jobs.quota_hits (allowance, period_start, user_id)
           SELECT h.allowance, ${PERIOD_START}, $1 FROM (SELECT $2::varchar AS allowance) h
           ON CONFLICT (allowance, period_start, user_id) DO NOTHING`,
    values: [userId, allowance],
  });
}

export interface QuotaHitCounts {
  dayStart: Date;
  monthStart: Date;
  dailyUsers: number;
  monthlyUsers: number;
  inFlightUsers: number;
}

/** The users each allowance refused in its current period, each count one range of the key. */
export async function selectQuotaHitCounts(db: Queryable): Promise<QuotaHitCounts> {
  const { rows } = await db.query<{ day_start: Date; month_start: Date; daily: number; monthly: number; in_flight: number }>({
    name: 'jobs.quota_hit_counts',
    text: `SELECT ${START_OF_UTC_DAY} AS day_start, ${START_OF_UTC_MONTH} AS month_start,
                  (SELECT count(*)::int FROM jobs.quota_hits WHERE allowance = 'daily' AND period_start = ${START_OF_UTC_DAY}) AS daily,
                  (SELECT count(*)::int FROM jobs.quota_hits WHERE allowance = 'monthly' AND period_start = ${START_OF_UTC_MONTH}) AS monthly,
                  (SELECT count(*)::int FROM jobs.quota_hits WHERE allowance = 'in_flight' AND period_start = ${START_OF_UTC_DAY}) AS in_flight`,
  });
  const row = rows[0]!;
  return {
    dayStart: row.day_start,
    monthStart: row.month_start,
    dailyUsers: row.daily,
    monthlyUsers: row.monthly,
    inFlightUsers: row.in_flight,
  };
}

/**
 * Deletes up to `limit` rows of periods that ended (retention): what the overview no longer
 * shows. Answers how many went.
 */
export async function pruneEndedQuotaHits(db: Queryable, limit: number): Promise<number> {
  const { rows } = await db.query<{ deleted: number }>({
    name: 'retention.prune_quota_hits',
    text: `WITH gone AS (
             DELETE FROM jobs.quota_hits WHERE (allowance, period_start, user_id) IN (
               SELECT allowance, period_start, user_id FROM jobs.quota_hits
                WHERE period_start < ${PERIOD_START}
                LIMIT $1)
             RETURNING 1)
           SELECT count(*)::int AS deleted FROM gone`,
    values: [limit],
  });
  return rows[0]!.deleted;
}

/** A deleted account's rows (its part of jobs' account deletion). */
export async function deleteQuotaHitsOfUser(db: Queryable, userId: string): Promise<void> {
  await db.query({
    name: 'jobs.delete_quota_hits_of_user',
    text: `DELETE FROM jobs.quota_hits WHERE user_id = $1`,
    values: [userId],
  });
}

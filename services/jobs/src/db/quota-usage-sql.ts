import type { Queryable } from '@atelier/db';
import { countsTowardQuotaSql, holdsInFlightSlotSql, type QuotaUsage } from '../domain/quota.js';

/**
 * The quota's windows, in the database's clock: the counts, their resets and the overview's
 * figures agree. Computed on UTC wall time and turned into instants last, so that neither the
 * start nor the end of a window depends on the session's time zone (a DST zone's "+ 1 month"
 * would shift by an hour).
 */
const UTC_NOW = `(now() AT TIME ZONE 'UTC')`;
export const START_OF_UTC_DAY = `(date_trunc('day', ${UTC_NOW}) AT TIME ZONE 'UTC')`;
export const START_OF_UTC_MONTH = `(date_trunc('month', ${UTC_NOW}) AT TIME ZONE 'UTC')`;
const END_OF_UTC_DAY = `((date_trunc('day', ${UTC_NOW}) + interval '1 day') AT TIME ZONE 'UTC')`;
const END_OF_UTC_MONTH = `((date_trunc('month', ${UTC_NOW}) + interval '1 month') AT TIME ZONE 'UTC')`;

/**
 * The three counts the quota compares with its limits, as one row of the columns `today`,
 * `this_month` and `in_flight`, for the user `userId`, the counted job types `jobTypes` and the
 * monthly limit `monthlyLimit` (SQL expressions). The one definition of the usage: CreateJob's
 * insert statement counts with it under the user's lock (transitions/create-sql.ts), GetQuota
 * reads it. One counting rule for both windows (countsTowardQuotaSql), so a job given back is
 * given back in both.
 *
 * Each count runs on an index range that holds only what it counts, so the cost does not grow
 * with the history: today's jobs of the user and their queued and running ones, as before; the
 * month adds the user's jobs of the month's earlier days — today's are counted once, for both —
 * and counts at most `monthlyLimit` of them (LIMIT): whether the month is under its limit needs no
 * more, so a create reads at most that many rows more however busy the month was.
 */
export function quotaUsageSql(userId: string, jobTypes: string, monthlyLimit: string): string {
  return `SELECT d.today,
                 d.today + (SELECT count(*)::int FROM (
                              SELECT 1 FROM jobs.generation_jobs j
                               WHERE j.user_id = ${userId} AND j.created_at >= ${START_OF_UTC_MONTH} AND j.created_at < ${START_OF_UTC_DAY}
                                 AND j.job_type = ANY(${jobTypes}) AND ${countsTowardQuotaSql('j')}
                               LIMIT ${monthlyLimit}) earlier) AS this_month,
                 (SELECT count(*)::int FROM jobs.generation_jobs j
                   WHERE j.user_id = ${userId} AND ${holdsInFlightSlotSql('j')} AND j.job_type = ANY(${jobTypes})) AS in_flight
            FROM (SELECT count(*)::int AS today FROM jobs.generation_jobs j
                   WHERE j.user_id = ${userId} AND j.created_at >= ${START_OF_UTC_DAY}
                     AND j.job_type = ANY(${jobTypes}) AND ${countsTowardQuotaSql('j')}) d`;
}

export interface QuotaReading extends QuotaUsage {
  /** The end of the current UTC day: jobs created from then on count towards the next day. */
  dailyResetsAt: Date;
  /** The end of the current UTC month (the first midnight of the next): jobs created from then on count towards the next month. */
  monthlyResetsAt: Date;
}

/**
 * A user's usage now, without their lock: a snapshot of the committed jobs, which is what the
 * next create would count (it takes the lock, then counts the same way).
 */
export async function selectQuotaUsage(
  db: Queryable,
  userId: string,
  jobTypes: readonly string[],
  monthlyLimit: number,
): Promise<QuotaReading> {
  const { rows } = await db.query<{ today: number; this_month: number; in_flight: number; daily_resets_at: Date; monthly_resets_at: Date }>(
    {
      name: 'jobs.quota_usage',
      text: `SELECT u.*, ${END_OF_UTC_DAY} AS daily_resets_at, ${END_OF_UTC_MONTH} AS monthly_resets_at
             FROM (${quotaUsageSql('$1', '$2::text[]', '$3::int')}) u`,
      values: [userId, jobTypes, monthlyLimit],
    },
  );
  const row = rows[0]!;
  return {
    today: row.today,
    thisMonth: row.this_month,
    inFlight: row.in_flight,
    dailyResetsAt: row.daily_resets_at,
    monthlyResetsAt: row.monthly_resets_at,
  };
}

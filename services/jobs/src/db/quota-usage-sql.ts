import type { Queryable } from '@atelier/db';
import { countsTowardDailyQuotaSql, holdsInFlightSlotSql, type QuotaUsage } from '../domain/quota.js';

/** The current UTC day starts here, in the database's clock: the daily count and its reset agree. */
const START_OF_UTC_DAY = `date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'`;

/**
 * The two counts the quota compares with its limits, as the columns `today` and `in_flight`, for
 * the user `userId` and the counted job types `jobTypes` (SQL expressions). The one definition
 * of the usage: CreateJob's insert statement counts with it under the user's lock
 * (transitions/create-sql.ts), GetQuota reads it. Each count runs on an index range that holds
 * only what it counts (today's jobs of the user; the user's queued and running ones), so the cost
 * does not grow with the history.
 */
export function quotaUsageColumnsSql(userId: string, jobTypes: string): string {
  return `(SELECT count(*)::int FROM jobs.generation_jobs j
            WHERE j.user_id = ${userId} AND j.created_at >= ${START_OF_UTC_DAY}
              AND j.job_type = ANY(${jobTypes}) AND ${countsTowardDailyQuotaSql('j')}) AS today,
          (SELECT count(*)::int FROM jobs.generation_jobs j
            WHERE j.user_id = ${userId} AND ${holdsInFlightSlotSql('j')} AND j.job_type = ANY(${jobTypes})) AS in_flight`;
}

export interface QuotaReading extends QuotaUsage {
  /** The end of the current UTC day: jobs created from then on count towards the next day. */
  resetsAt: Date;
}

/**
 * A user's usage now, without their lock: a snapshot of the committed jobs, which is what the
 * next create would count (it takes the lock, then counts the same way).
 */
export async function selectQuotaUsage(db: Queryable, userId: string, jobTypes: readonly string[]): Promise<QuotaReading> {
  const { rows } = await db.query<{ today: number; in_flight: number; resets_at: Date }>({
    name: 'jobs.quota_usage',
    text: `SELECT ${quotaUsageColumnsSql('$1', '$2::text[]')}, ${START_OF_UTC_DAY} + interval '1 day' AS resets_at`,
    values: [userId, jobTypes],
  });
  const row = rows[0]!;
  return { today: row.today, inFlight: row.in_flight, resetsAt: row.resets_at };
}

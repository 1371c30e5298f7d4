import type { Queryable } from '@atelier/db';
import { spentTodaySql } from './provider-gates-sql.js';

/** The share of a daily budget past which operators are warned (the alert says the same). */
export const BUDGET_WARNING_RATIO = 0.8;

/**
 * Writes the day's warning of every budget at or past 80 % that has not had today's yet: marks
 * the budget warned today and queues the event (jobs.outbox, `subject`) in one statement, so the
 * event goes out once per budget per UTC day whichever replica runs it and however often. Answers
 * the budgets warned.
 */
export async function writeBudgetWarnings(db: Queryable, subject: string): Promise<{ provider_code: string; provider_model: string }[]> {
  const { rows } = await db.query<{ provider_code: string; provider_model: string }>({
    name: 'jobs.gates.budget_warnings',
    text: `WITH due AS (
             SELECT b.provider_code, b.provider_model, b.daily_limit_micros, b.currency, ${spentTodaySql('b')} AS spent
               FROM jobs.spend_budgets b
              WHERE b.warned_on IS DISTINCT FROM (now() AT TIME ZONE 'UTC')::date AND b.daily_limit_micros > 0),
           warned AS (
             UPDATE jobs.spend_budgets b SET warned_on = (now() AT TIME ZONE 'UTC')::date
               FROM due
              WHERE b.provider_code = due.provider_code AND b.provider_model = due.provider_model
                AND due.spent >= $2::float8 * due.daily_limit_micros
                AND b.warned_on IS DISTINCT FROM (now() AT TIME ZONE 'UTC')::date
             RETURNING b.provider_code, b.provider_model, b.warned_on, due.daily_limit_micros, due.currency, due.spent),
           queued AS (
             INSERT INTO jobs.outbox (aggregate_id, event_type, subject, dedupe_key, payload)
             SELECT md5('budget:' || w.provider_code || ':' || w.provider_model)::uuid, 'provider.budget_warning', $1,
                    'budget-warning:' || w.provider_code || ':' || w.provider_model || ':' || w.warned_on,
                    jsonb_build_object('provider', w.provider_code, 'model', w.provider_model, 'day', w.warned_on,
                                       'dailyLimitMicros', w.daily_limit_micros, 'spentMicros', w.spent, 'currency', w.currency,
                                       'usedRatio', round(w.spent::numeric / w.daily_limit_micros, 4), 'at', now())
               FROM warned w
             ON CONFLICT (dedupe_key) DO NOTHING)
           SELECT provider_code, provider_model FROM warned`,
    values: [subject, BUDGET_WARNING_RATIO],
  });
  return rows;
}

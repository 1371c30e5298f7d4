import type { Queryable } from '@atelier/db';
import { runningSql, spentTodaySql } from './provider-gates-sql.js';

/** A row of jobs.spend_budgets with today's spend. */
export interface SpendBudgetRow {
  provider_code: string;
  provider_model: string;
  daily_limit_micros: string;
  currency: string;
  updated_by: string;
  updated_at: Date;
  spent_today_micros: string;
}

/** A row of jobs.provider_limits with the provider's state now. */
export interface ProviderLimitRow {
  provider_code: string;
  provider_model: string;
  max_concurrent: number | null;
  max_requests_per_second: number | null;
  burst: number | null;
  updated_by: string;
  updated_at: Date;
  running: number;
  paused_until: Date | null;
  waiting: number;
  oldest_waiting_ms: string;
}

/**
 * Due queued jobs on our key counted against the limit row aliased `l`, as `column` of them: what
 * waits for the provider (model) to take more.
 */
function waitingSql(l: string, column: string): string {
  return `(SELECT ${column} FROM jobs.generation_jobs j
            WHERE j.status = 'queued' AND j.next_attempt_at <= now() AND j.credential_mode = 'platform_key'
              AND j.provider_code_snapshot = ${l}.provider_code
              AND (${l}.provider_model = '' OR j.provider_model_snapshot = ${l}.provider_model))`;
}

const BUDGET_COLUMNS = `b.provider_code, b.provider_model, b.daily_limit_micros, b.currency, b.updated_by, b.updated_at,
                        ${spentTodaySql('b')} AS spent_today_micros`;
const LIMIT_COLUMNS = `l.provider_code, l.provider_model, l.max_concurrent, l.max_requests_per_second, l.burst, l.updated_by, l.updated_at,
                       ${runningSql('l')} AS running,
                       (SELECT s.paused_until FROM jobs.provider_gate_state s
                         WHERE s.provider_code = l.provider_code AND s.paused_until > now()) AS paused_until,
                       ${waitingSql('l', 'count(*)::int')} AS waiting,
                       ${waitingSql('l', `coalesce(floor(extract(epoch FROM now() - min(j.next_attempt_at)) * 1000), 0)::bigint`)} AS oldest_waiting_ms`;

export async function listSpendBudgets(db: Queryable): Promise<SpendBudgetRow[]> {
  const { rows } = await db.query<SpendBudgetRow>(
    `SELECT ${BUDGET_COLUMNS} FROM jobs.spend_budgets b ORDER BY b.provider_code, b.provider_model LIMIT 1000`,
  );
  return rows;
}

export interface SpendBudgetInput {
  providerCode: string;
  providerModel: string;
  dailyLimitMicros: number;
  currency: string;
  updatedBy: string;
}

/** Creates or replaces a budget; a change of limit also lets today's 80 % warning be sent again. */
export async function upsertSpendBudget(db: Queryable, input: SpendBudgetInput): Promise<SpendBudgetRow> {
  const { rows } = await db.query<SpendBudgetRow>(
    `WITH upserted AS (
       INSERT INTO jobs.spend_budgets AS b (provider_code, provider_model, daily_limit_micros, currency, updated_by)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (provider_code, provider_model) DO UPDATE
         SET daily_limit_micros = excluded.daily_limit_micros, currency = excluded.currency, updated_by = excluded.updated_by,
             updated_at = now(),
             warned_on = CASE WHEN excluded.daily_limit_micros > b.daily_limit_micros THEN NULL ELSE b.warned_on END
       RETURNING *)
     SELECT ${BUDGET_COLUMNS} FROM upserted b`,
    [input.providerCode, input.providerModel, input.dailyLimitMicros, input.currency, input.updatedBy],
  );
  return rows[0]!;
}

/** A budget as an operator set it: what the audit log shows before and after a change. */
export interface SpendBudgetSetting {
  dailyLimitMicros: number;
  currency: string;
}

/** The budget's setting, locked until the caller's transaction ends (the audit's "before"); null when none is set. */
export async function lockSpendBudgetSetting(
  db: Queryable,
  providerCode: string,
  providerModel: string,
): Promise<SpendBudgetSetting | null> {
  const { rows } = await db.query<SpendBudgetSetting>(
    `SELECT daily_limit_micros::float8 AS "dailyLimitMicros", currency FROM jobs.spend_budgets
      WHERE provider_code = $1 AND provider_model = $2 FOR UPDATE`,
    [providerCode, providerModel],
  );
  return rows[0] ?? null;
}

/** Deletes the budget; answers its setting, or null when there was none. */
export async function deleteSpendBudget(db: Queryable, providerCode: string, providerModel: string): Promise<SpendBudgetSetting | null> {
  const { rows } = await db.query<SpendBudgetSetting>(
    `DELETE FROM jobs.spend_budgets WHERE provider_code = $1 AND provider_model = $2
     RETURNING daily_limit_micros::float8 AS "dailyLimitMicros", currency`,
    [providerCode, providerModel],
  );
  return rows[0] ?? null;
}

export async function listProviderLimits(db: Queryable): Promise<ProviderLimitRow[]> {
  const { rows } = await db.query<ProviderLimitRow>(
    `SELECT ${LIMIT_COLUMNS} FROM jobs.provider_limits l ORDER BY l.provider_code, l.provider_model LIMIT 1000`,
  );
  return rows;
}

export interface ProviderLimitInput {
  providerCode: string;
  providerModel: string;
  maxConcurrent: number | null;
  maxRequestsPerSecond: number | null;
  burst: number | null;
  updatedBy: string;
}

export async function upsertProviderLimit(db: Queryable, input: ProviderLimitInput): Promise<ProviderLimitRow> {
  const { rows } = await db.query<ProviderLimitRow>(
    `WITH upserted AS (
       INSERT INTO jobs.provider_limits AS l (provider_code, provider_model, max_concurrent, max_requests_per_second, burst, updated_by)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (provider_code, provider_model) DO UPDATE
         SET max_concurrent = excluded.max_concurrent, max_requests_per_second = excluded.max_requests_per_second,
             burst = excluded.burst, updated_by = excluded.updated_by, updated_at = now()
       RETURNING *)
     SELECT ${LIMIT_COLUMNS} FROM upserted l`,
    [input.providerCode, input.providerModel, input.maxConcurrent, input.maxRequestsPerSecond, input.burst, input.updatedBy],
  );
  return rows[0]!;
}

/** A limit as an operator set it: what the audit log shows before and after a change. */
export interface ProviderLimitSetting {
  maxConcurrent: number | null;
  maxRequestsPerSecond: number | null;
  burst: number | null;
}

const LIMIT_SETTING = `max_concurrent AS "maxConcurrent", max_requests_per_second AS "maxRequestsPerSecond", burst`;

/** The limit's setting, locked until the caller's transaction ends (the audit's "before"); null when none is set. */
export async function lockProviderLimitSetting(
  db: Queryable,
  providerCode: string,
  providerModel: string,
): Promise<ProviderLimitSetting | null> {
  const { rows } = await db.query<ProviderLimitSetting>(
    `SELECT ${LIMIT_SETTING} FROM jobs.provider_limits WHERE provider_code = $1 AND provider_model = $2 FOR UPDATE`,
    [providerCode, providerModel],
  );
  return rows[0] ?? null;
}

/** Deletes the limit; answers its setting, or null when there was none. */
export async function deleteProviderLimit(
  db: Queryable,
  providerCode: string,
  providerModel: string,
): Promise<ProviderLimitSetting | null> {
  const { rows } = await db.query<ProviderLimitSetting>(
    `DELETE FROM jobs.provider_limits WHERE provider_code = $1 AND provider_model = $2 RETURNING ${LIMIT_SETTING}`,
    [providerCode, providerModel],
  );
  return rows[0] ?? null;
}

import type { Queryable } from '@atelier/db';

/** The operators' reads of the usage ledger (jobs.provider_calls): spend is the cost of billable rows. */

export type SpendGrouping = 'day' | 'provider' | 'model';

export interface SpendRowData {
  key: string;
  providerCode: string;
  providerModel: string;
  modelVersion: string;
  modelId: string | null;
  /** '' for billable rows without a price in force. */
  currency: string;
  costMicros: number;
  billablePredictions: number;
  predictTimeMs: number;
  images: number;
}

/** Each grouping's key and columns (the select list), and its GROUP BY. */
const GROUPS: Record<SpendGrouping, { select: string; groupBy: string }> = {
  day: {
    select: `to_char(called_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS key, '' AS "providerCode", '' AS "providerModel",
             '' AS "modelVersion", NULL::uuid AS "modelId"`,
    groupBy: '1',
  },
  provider: {
    select: `provider_code AS key, provider_code AS "providerCode", '' AS "providerModel", '' AS "modelVersion", NULL::uuid AS "modelId"`,
    groupBy: '1, 2',
  },
  model: {
    select: `provider_code || '/' || provider_model || '@' || model_version AS key, provider_code AS "providerCode",
             provider_model AS "providerModel", model_version AS "modelVersion", model_id AS "modelId"`,
    groupBy: '1, 2, 3, 4, 5',
  },
};

const SPEND_AGGREGATES = `COALESCE(currency, '') AS currency, COALESCE(sum(cost_micros), 0)::float8 AS "costMicros",
  count(*)::float8 AS "billablePredictions", COALESCE(sum(predict_time_ms), 0)::float8 AS "predictTimeMs",
  COALESCE(sum(images), 0)::float8 AS images`;

/** Spend called in [from, to), per group and currency, in key order; $3: a credential mode or NULL for all. */
export async function selectSpend(
  db: Queryable,
  window: { from: Date; to: Date; credentialMode: string | null },
  grouping: SpendGrouping,
): Promise<{ rows: SpendRowData[]; totals: SpendRowData[] }> {
  const group = GROUPS[grouping];
  const where = `billable AND called_at >= $1 AND called_at < $2 AND ($3::text IS NULL OR credential_mode = $3)`;
  const [rows, totals] = await Promise.all([
    db.query<SpendRowData>({
      name: `jobs.select_spend_by_${grouping}`,
      text: `SELECT ${group.select}, ${SPEND_AGGREGATES}
               FROM jobs.provider_calls WHERE ${where}
              GROUP BY ${group.groupBy}, COALESCE(currency, '') ORDER BY 1, "currency"`,
      values: [window.from, window.to, window.credentialMode],
    }),
    db.query<SpendRowData>({
      name: 'jobs.select_spend_total',
      text: `SELECT '' AS key, '' AS "providerCode", '' AS "providerModel", '' AS "modelVersion", NULL::uuid AS "modelId", ${SPEND_AGGREGATES}
               FROM jobs.provider_calls WHERE ${where}
              GROUP BY COALESCE(currency, '') ORDER BY 6`,
      values: [window.from, window.to, window.credentialMode],
    }),
  ]);
  return { rows: rows.rows, totals: totals.rows };
}

export interface TopSpenderData {
  userId: string | null;
  currency: string;
  costMicros: number;
  jobs: number;
}

/** The users whose billable calls in [from, to) cost most (per currency), most first. */
export async function selectTopSpenders(db: Queryable, window: { from: Date; to: Date }, limit: number): Promise<TopSpenderData[]> {
  const { rows } = await db.query<TopSpenderData>({
    name: 'jobs.select_top_spenders',
    text: `SELECT user_id AS "userId", currency, sum(cost_micros)::float8 AS "costMicros", count(DISTINCT job_id)::float8 AS jobs
             FROM jobs.provider_calls
            WHERE billable AND cost_micros IS NOT NULL AND called_at >= $1 AND called_at < $2
            GROUP BY user_id, currency
            ORDER BY sum(cost_micros) DESC, user_id NULLS LAST
            LIMIT $3`,
    values: [window.from, window.to, limit],
  });
  return rows;
}

export interface ProviderCallRow {
  id: string;
  job_id: string;
  attempt: number;
  call_kind: string;
  request_key: string;
  vendor_id: string;
  provider_code: string;
  provider_model: string;
  model_version: string;
  model_id: string | null;
  credential_mode: string;
  credential_id: string;
  outcome: string;
  error_code: string | null;
  http_status: number | null;
  latency_ms: number;
  predict_time_ms: number | null;
  images: number | null;
  billable: boolean;
  cost_micros: number | null;
  currency: string | null;
  called_at: Date;
  recorded_at: Date;
}

/** The most calls a job's read returns. */
export const MAX_CALLS_PER_JOB_READ = 1000;

/** A job's calls in the order they were made (provider_calls_by_job). */
export async function selectJobProviderCalls(db: Queryable, jobId: string): Promise<ProviderCallRow[]> {
  const { rows } = await db.query<ProviderCallRow>({
    name: 'jobs.select_job_provider_calls',
    text: `SELECT id::text AS id, job_id, attempt, call_kind, request_key, vendor_id, provider_code, provider_model, model_version, model_id,
                  credential_mode, credential_id, outcome, error_code, http_status, latency_ms, predict_time_ms, images, billable,
                  cost_micros::float8 AS cost_micros, currency, called_at, recorded_at
             FROM jobs.provider_calls WHERE job_id = $1 ORDER BY called_at, id LIMIT ${MAX_CALLS_PER_JOB_READ}`,
    values: [jobId],
  });
  return rows;
}

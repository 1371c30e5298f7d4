import { isUniqueViolation, type Queryable } from '@atelier/db';
import type { ProviderCallRecord } from '../domain/provider-call-input.js';
import type { CallCost } from '../domain/call-cost.js';

/** The writes of the usage ledger, jobs.provider_calls (migration 0014, docs/usage-ledger.md). */

/** A call to record, with the cost its units would have if it turns out to be the prediction's bill. */
export interface CallToRecord extends ProviderCallRecord {
  candidateCost: CallCost | null;
}

/**
 * Records a batch of calls in one statement.
 *
 * - Idempotent: a call already recorded (same request_key, call_kind, vendor_id) is skipped by
 *   ON CONFLICT on provider_calls_write_once, so a retried write changes nothing.
 * - The owner and the model come from the job row (LEFT JOIN: a job jobs no longer has — its
 *   account was deleted — leaves them NULL; the money stays), and so do the provider model and
 *   version when the worker sent none.
 * - One bill per vendor prediction: a call that reports units (predict time, images) for a
 *   prediction (vendor_id not empty) is billable only if it is the first such report in the batch
 *   (row_number) and no billable row of (provider_code, vendor_id) exists yet (NOT EXISTS); only
 *   then does it carry its cost. Two writers racing on one prediction both pass NOT EXISTS, but the
 *   partial unique index provider_calls_one_bill_per_prediction lets one commit: the other's
 *   statement fails with a unique violation on it and recordProviderCalls runs it again, when
 *   NOT EXISTS sees the winner and the loser's row is kept as a non-billable report.
 */
const RECORD_CALLS_SQL = `
  WITH input AS (
    SELECT * FROM jsonb_to_recordset($1::jsonb) AS c(
      ord int, job_id uuid, attempt smallint, call_kind text, request_key text, vendor_id text, provider_code text,
      provider_model text, model_version text, credential_mode text, credential_id text, outcome text, error_code text,
      http_status smallint, latency_ms int, predict_time_ms int, images int, cost_micros bigint, currency text, called_at timestamptz)
  ),
  first_reports AS (
    SELECT c.*,
           c.vendor_id <> '' AND (c.predict_time_ms IS NOT NULL OR c.images IS NOT NULL)
             AND row_number() OVER (
                   PARTITION BY c.provider_code, c.vendor_id, (c.predict_time_ms IS NOT NULL OR c.images IS NOT NULL)
                   ORDER BY c.called_at, c.ord) = 1 AS first_report
      FROM input c
  ),
  decided AS (
    SELECT f.*, j.user_id, j.model_id,
           COALESCE(NULLIF(f.provider_model, ''), j.provider_model_snapshot, '') AS job_provider_model,
           COALESCE(NULLIF(f.model_version, ''), j.model_version_snapshot, '') AS job_model_version,
           f.first_report AND NOT EXISTS (
             SELECT 1 FROM jobs.provider_calls b WHERE b.provider_code = f.provider_code AND b.vendor_id = f.vendor_id AND b.billable
           ) AS billable
      FROM first_reports f
      LEFT JOIN jobs.generation_jobs j ON j.id = f.job_id
  )
  INSERT INTO jobs.provider_calls
    (job_id, user_id, attempt, call_kind, request_key, vendor_id, provider_code, provider_model, model_version, model_id,
     credential_mode, credential_id, outcome, error_code, http_status, latency_ms, predict_time_ms, images,
     billable, cost_micros, currency, called_at)
  SELECT job_id, user_id, attempt, call_kind, request_key, vendor_id, provider_code, job_provider_model, job_model_version, model_id,
         credential_mode, credential_id, outcome, error_code, http_status, latency_ms, predict_time_ms, images,
         billable, CASE WHEN billable THEN cost_micros END, CASE WHEN billable THEN currency END, called_at
    FROM decided
   ORDER BY ord
  ON CONFLICT ON CONSTRAINT provider_calls_write_once DO NOTHING
  RETURNING billable, provider_code, cost_micros::float8 AS cost_micros, currency`;

/** How many times a batch that lost a race for a prediction's bill is run again. */
const BILL_RACE_RETRIES = 3;

/** A row written with its cost (the spend counter). */
export interface BilledCall {
  providerCode: string;
  costMicros: number;
  currency: string;
}

export async function recordProviderCalls(
  db: Queryable,
  calls: readonly CallToRecord[],
): Promise<{ recorded: number; billed: BilledCall[] }> {
  const input = JSON.stringify(
    calls.map((call, ord) => ({
      ord,
      job_id: call.jobId,
      attempt: call.attempt,
      call_kind: call.callKind,
      request_key: call.requestKey,
      vendor_id: call.vendorId,
      provider_code: call.providerCode,
      provider_model: call.providerModel,
      model_version: call.modelVersion,
      credential_mode: call.credentialMode,
      credential_id: call.credentialId,
      outcome: call.outcome,
      error_code: call.errorCode,
      http_status: call.httpStatus,
      latency_ms: call.latencyMs,
      predict_time_ms: call.predictTimeMs,
      images: call.images,
      cost_micros: call.candidateCost?.costMicros ?? null,
      currency: call.candidateCost?.currency ?? null,
      called_at: call.calledAt.toISOString(),
    })),
  );
  for (let attempt = 0; ; attempt += 1) {
    try {
      const { rows } = await db.query<{ billable: boolean; provider_code: string; cost_micros: number | null; currency: string | null }>({
        name: 'jobs.record_provider_calls',
        text: RECORD_CALLS_SQL,
        values: [input],
      });
      const billed = rows.flatMap((row) =>
        row.cost_micros === null || row.currency === null
          ? []
          : [{ providerCode: row.provider_code, costMicros: row.cost_micros, currency: row.currency }],
      );
      return { recorded: rows.length, billed };
    } catch (error) {
      if (attempt >= BILL_RACE_RETRIES || !isUniqueViolation(error, 'provider_calls_one_bill_per_prediction')) throw error;
    }
  }
}

/** The owner and model of each job named that exists (for pricing; the insert joins the row again). */
export async function selectJobModels(db: Queryable, jobIds: readonly string[]): Promise<Map<string, string | null>> {
  const { rows } = await db.query<{ id: string; model_id: string | null }>({
    name: 'jobs.select_job_models',
    text: `SELECT id, model_id FROM jobs.generation_jobs WHERE id = ANY($1::uuid[])`,
    values: [jobIds],
  });
  return new Map(rows.map((row) => [row.id, row.model_id]));
}

/** A billable row of a window, with what its cost is computed from. */
export interface BilledRow {
  id: string;
  modelId: string | null;
  predictTimeMs: number | null;
  images: number | null;
  calledAt: Date;
  costMicros: number | null;
  currency: string | null;
}

/** Billable rows called in [from, to) after the id `after`, by id: one batch of RecomputeCosts. */
export async function selectBilledRows(
  db: Queryable,
  window: { from: Date; to: Date },
  after: string,
  limit: number,
): Promise<BilledRow[]> {
  const { rows } = await db.query<BilledRow>({
    name: 'jobs.select_billed_rows',
    text: `SELECT id::text AS id, model_id AS "modelId", predict_time_ms AS "predictTimeMs", images, called_at AS "calledAt",
                  cost_micros::float8 AS "costMicros", currency
             FROM jobs.provider_calls
            WHERE billable AND called_at >= $1 AND called_at < $2 AND id > $3::bigint
            ORDER BY id LIMIT $4`,
    values: [window.from, window.to, after, limit],
  });
  return rows;
}

/** Sets the cost of billable rows; answers how many changed (a cost equal to the stored one is not written). */
export async function updateCosts(
  db: Queryable,
  costs: readonly { id: string; costMicros: number | null; currency: string | null }[],
): Promise<number> {
  if (costs.length === 0) return 0;
  const result = await db.query({
    name: 'jobs.update_call_costs',
    text: `UPDATE jobs.provider_calls p SET cost_micros = c.cost_micros, currency = c.currency
             FROM unnest($1::bigint[], $2::bigint[], $3::text[]) AS c(id, cost_micros, currency)
            WHERE p.id = c.id AND p.billable
              AND (p.cost_micros IS DISTINCT FROM c.cost_micros OR p.currency IS DISTINCT FROM c.currency)`,
    values: [costs.map((cost) => cost.id), costs.map((cost) => cost.costMicros), costs.map((cost) => cost.currency)],
  });
  return result.rowCount ?? 0;
}

/** Account deletion: the user's ledger rows keep their money and lose their owner. */
export async function forgetOwnerOfProviderCalls(db: Queryable, userId: string): Promise<void> {
  await db.query({
    name: 'jobs.forget_provider_call_owner',
    text: `UPDATE jobs.provider_calls SET user_id = NULL WHERE user_id = $1`,
    values: [userId],
  });
}

import type { Queryable } from '@atelier/db';
import type { FindingKindWord, ValidVendorPrediction } from '../domain/reconciliation.js';

/**
 * Reconciliation with the vendor (migration 0016): the statements of a run and of the findings'
 * reads. What a run does, in order:
 *
 * 1. beginReconciliationRun: the provider's next window, leased to one worker.
 * 2. upsertVendorPredictions: each page the vendor listed, kept per (provider, prediction).
 * 3. In FinishReconciliation's transaction: matchVendorPredictionsToJobs, then the three
 *    insert…Findings statements, then finishReconciliationRun.
 *
 * Only the platform account is reconciled: the worker lists with the platform key, and the ledger
 * rows matched are `credential_mode = 'platform_key'` (a user's own key is the user's account).
 */

/** Whether a run is `running`, `finished` or `abandoned` (reconciliation_runs.status). */
export type ReconciliationRunStatus = 'running' | 'finished' | 'abandoned';

export type { FindingKindWord };

export interface ReconciliationRunRow {
  id: string;
  provider_code: string;
  window_start: Date;
  window_end: Date;
  status: ReconciliationRunStatus;
  worker_id: string;
  lease_expires_at: Date;
  started_at: Date;
  finished_at: Date | null;
  predictions_seen: number;
  findings_recorded: number;
}

export interface ReconciliationFindingRow {
  id: string;
  provider_code: string;
  kind: FindingKindWord;
  vendor_id: string;
  job_id: string | null;
  detail: string;
  run_id: string;
  found_at: Date;
  acknowledged_at: Date | null;
  acknowledged_by: string | null;
}

const MS = `* interval '1 millisecond'`;

/** Runs of the provider whose worker stopped renewing the lease: their windows are offered again. */
export async function abandonExpiredRuns(db: Queryable, providerCode: string): Promise<number> {
  const { rowCount } = await db.query({
    name: 'jobs.reconciliation_abandon_expired',
    text: `UPDATE jobs.reconciliation_runs SET status = 'abandoned'
            WHERE provider_code = $1 AND status = 'running' AND lease_expires_at <= now()`,
    values: [providerCode],
  });
  return rowCount ?? 0;
}

/**
 * The provider's next window, leased to `workerId`: it starts where the latest finished run
 * ended (the first one maxWindowMs back) and ends at the earlier of now − settleMs and its start
 * + maxWindowMs. Nothing is inserted when that window is empty (not due), nor while another run of
 * the provider is running: the partial unique index reconciliation_runs_one_running makes the
 * INSERT a no-op then (ON CONFLICT DO NOTHING), which is the lease two pods contend for.
 */
export async function insertReconciliationRun(
  db: Queryable,
  run: { id: string; providerCode: string; workerId: string; settleMs: number; maxWindowMs: number; leaseMs: number },
): Promise<ReconciliationRunRow | undefined> {
  const { rows } = await db.query<ReconciliationRunRow>({
    name: 'jobs.reconciliation_insert_run',
    text: `INSERT INTO jobs.reconciliation_runs (id, provider_code, window_start, window_end, status, worker_id, lease_expires_at)
           SELECT $1, $2, w.window_start, w.window_end, 'running', $3, now() + $6 ${MS}
             FROM (SELECT s.window_start, least(s.window_start + $5 ${MS}, now() - $4 ${MS}) AS window_end
                     FROM (SELECT coalesce(
                                    (SELECT max(window_end) FROM jobs.reconciliation_runs WHERE provider_code = $2 AND status = 'finished'),
                                    now() - $5 ${MS}) AS window_start) s) w
            WHERE w.window_end > w.window_start
           ON CONFLICT DO NOTHING
           RETURNING *`,
    values: [run.id, run.providerCode, run.workerId, run.settleMs, run.maxWindowMs, run.leaseMs],
  });
  return rows[0];
}

/** Whether a run of the provider holds a live lease (why insertReconciliationRun inserted nothing). */
export async function hasRunningRun(db: Queryable, providerCode: string): Promise<boolean> {
  const { rows } = await db.query({
    name: 'jobs.reconciliation_has_running',
    text: `SELECT 1 FROM jobs.reconciliation_runs WHERE provider_code = $1 AND status = 'running'`,
    values: [providerCode],
  });
  return rows.length > 0;
}

/**
 * Renews the run's lease and keeps one page of the vendor's list: a prediction already kept
 * (an earlier page, run or the slack before a window) gets its latest status and this run. Nothing
 * is written, and undefined answered, when the run is not this worker's running one with a live
 * lease. The page holds each id once (ON CONFLICT DO UPDATE cannot touch a row twice).
 */
export async function upsertVendorPredictions(
  db: Queryable,
  runId: string,
  workerId: string,
  leaseMs: number,
  predictions: readonly ValidVendorPrediction[],
): Promise<Date | undefined> {
  const { rows } = await db.query<{ lease_expires_at: Date }>({
    name: 'jobs.reconciliation_upsert_predictions',
    text: `WITH run AS (
             UPDATE jobs.reconciliation_runs SET lease_expires_at = now() + $3 ${MS}
              WHERE id = $1 AND worker_id = $2 AND status = 'running' AND lease_expires_at > now()
             RETURNING id, provider_code, lease_expires_at),
           kept AS (
             INSERT INTO jobs.reconciliation_vendor_predictions
                    (provider_code, vendor_id, status, idempotency_key, created_at, predict_time_ms, images, last_run_id)
             SELECT run.provider_code, p.vendor_id, p.status, p.idempotency_key, p.created_at, p.predict_time_ms, p.images, run.id
               FROM run CROSS JOIN unnest($4::text[], $5::text[], $6::text[], $7::timestamptz[], $8::bigint[], $9::int[])
                    AS p(vendor_id, status, idempotency_key, created_at, predict_time_ms, images)
             ON CONFLICT (provider_code, vendor_id) DO UPDATE
               SET status = excluded.status, idempotency_key = excluded.idempotency_key, created_at = excluded.created_at,
                   predict_time_ms = excluded.predict_time_ms, images = excluded.images,
                   last_run_id = excluded.last_run_id, seen_at = now())
           SELECT lease_expires_at FROM run`,
    values: [
      runId,
      workerId,
      leaseMs,
      predictions.map((p) => p.id),
      predictions.map((p) => p.status),
      predictions.map((p) => p.idempotencyKey),
      predictions.map((p) => p.createdAt),
      predictions.map((p) => p.predictTimeMs),
      predictions.map((p) => p.images),
    ],
  });
  return rows[0]?.lease_expires_at;
}

/** The run, locked, when it is this worker's running one with a live lease (FinishReconciliation's first step). */
export async function lockLiveRun(db: Queryable, runId: string, workerId: string): Promise<ReconciliationRunRow | undefined> {
  const { rows } = await db.query<ReconciliationRunRow>({
    name: 'jobs.reconciliation_lock_live_run',
    text: `SELECT * FROM jobs.reconciliation_runs
            WHERE id = $1 AND worker_id = $2 AND status = 'running' AND lease_expires_at > now()
            FOR UPDATE`,
    values: [runId, workerId],
  });
  return rows[0];
}

// An Idempotency-Key the worker sends: the job id, or the job id and ":<n>" once the job gave up
// n predictions (ClaimedJob.provider_idempotency_key). Only such a key is read as a job id.
const JOB_KEY = `'^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}(:[0-9]{1,9})?$'`;

/**
 * The job of each prediction the run listed, first found of:
 * - the ledger: a submit call (any credential, any outcome) that named the prediction;
 * - the job's recorded provider request (generation_jobs.provider_request_id, L2 of "never
 *   twice", written before the worker polls);
 * - its Idempotency-Key, `<job id>` or `<job id>:<n>`, when that job exists.
 * Null when none: a prediction no job knows. Answers how many predictions the run listed.
 */
export async function matchVendorPredictionsToJobs(db: Queryable, run: ReconciliationRunRow): Promise<number> {
  const { rowCount } = await db.query({
    name: 'jobs.reconciliation_match_predictions',
    text: `UPDATE jobs.reconciliation_vendor_predictions vp
              SET job_id = coalesce(
                    (SELECT pc.job_id FROM jobs.provider_calls pc
                      WHERE pc.provider_code = vp.provider_code AND pc.vendor_id = vp.vendor_id AND pc.call_kind = 'submit'
                      LIMIT 1),
                    (SELECT gj.id FROM jobs.generation_jobs gj
                      WHERE gj.provider_code_snapshot = vp.provider_code AND gj.provider_request_id = vp.vendor_id),
                    (SELECT gj.id FROM jobs.generation_jobs gj
                      WHERE vp.idempotency_key ~ ${JOB_KEY} AND gj.id = left(vp.idempotency_key, 36)::uuid))
            WHERE vp.last_run_id = $1`,
    values: [run.id],
  });
  return rowCount ?? 0;
}

/** A finding's row as inserted; `fresh` rows are those this run recorded for the first time. */
export interface NewFinding {
  kind: FindingKindWord;
}

/**
 * prediction_without_job: a prediction of the run no job knows (matchVendorPredictionsToJobs
 * found none). Once per (provider, prediction): a later run that lists it again adds nothing.
 */
export async function insertPredictionWithoutJobFindings(db: Queryable, run: ReconciliationRunRow): Promise<NewFinding[]> {
  const { rows } = await db.query<NewFinding>({
    name: 'jobs.reconciliation_prediction_without_job',
    text: `INSERT INTO jobs.reconciliation_findings (provider_code, kind, vendor_id, job_id, detail, run_id)
           SELECT vp.provider_code, 'prediction_without_job', vp.vendor_id, NULL,
                  left(format('%s prediction created %s with Idempotency-Key %s', vp.status,
                              to_char(vp.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                              coalesce(quote_literal(vp.idempotency_key), 'none')), 1000),
                  $1
             FROM jobs.reconciliation_vendor_predictions vp
            WHERE vp.last_run_id = $1 AND vp.job_id IS NULL
           ON CONFLICT DO NOTHING
           RETURNING kind`,
    values: [run.id],
  });
  return rows;
}

/**
 * job_with_two_billable_predictions: a job of the run's predictions with two or more `succeeded`
 * predictions at the vendor, whichever runs listed them: paid twice for one output. A failed or
 * cancelled prediction is not counted: the retry rules give such a prediction up and submit the
 * next (key `<job id>:<n>`), which is the system working, not a double charge. Once per job
 * (vendor_id ''); detail names the predictions.
 */
export async function insertTwoBillableFindings(db: Queryable, run: ReconciliationRunRow): Promise<NewFinding[]> {
  const { rows } = await db.query<NewFinding>({
    name: 'jobs.reconciliation_two_billable',
    text: `INSERT INTO jobs.reconciliation_findings (provider_code, kind, vendor_id, job_id, detail, run_id)
           SELECT vp.provider_code, 'job_with_two_billable_predictions', '', vp.job_id,
                  left(format('%s succeeded predictions: %s', count(*),
                              string_agg(vp.vendor_id || ' (key ' || coalesce(vp.idempotency_key, 'none') || ')', ', '
                                         ORDER BY vp.created_at)), 1000),
                  $1
             FROM jobs.reconciliation_vendor_predictions vp
            WHERE vp.provider_code = $2 AND vp.status = 'succeeded'
              AND vp.job_id IN (SELECT job_id FROM jobs.reconciliation_vendor_predictions
                                 WHERE last_run_id = $1 AND job_id IS NOT NULL)
            GROUP BY vp.provider_code, vp.job_id
           HAVING count(*) >= 2
           ON CONFLICT DO NOTHING
           RETURNING kind`,
    values: [run.id, run.provider_code],
  });
  return rows;
}

/**
 * ledger_unknown_to_vendor: a submit the ledger recorded with the platform key, answered with a
 * prediction id, made in [list_from, window_end − slackMs), whose prediction the vendor never
 * listed (this run or any before). The range trails the window by the slack so that the
 * prediction, stamped by the vendor a moment after the call, falls inside what the run listed
 * ([list_from, window_end)). Once per (provider, prediction, job).
 */
export async function insertLedgerUnknownFindings(db: Queryable, run: ReconciliationRunRow, slackMs: number): Promise<NewFinding[]> {
  const { rows } = await db.query<NewFinding>({
    name: 'jobs.reconciliation_ledger_unknown',
    text: `INSERT INTO jobs.reconciliation_findings (provider_code, kind, vendor_id, job_id, detail, run_id)
           SELECT DISTINCT ON (pc.vendor_id, pc.job_id) pc.provider_code, 'ledger_unknown_to_vendor', pc.vendor_id, pc.job_id,
                  left(format('submit of attempt %s at %s (credential %s) answered this prediction; the vendor does not list it',
                              pc.attempt, to_char(pc.called_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                              pc.credential_id), 1000),
                  $1
             FROM jobs.provider_calls pc
            WHERE pc.provider_code = $2 AND pc.call_kind = 'submit' AND pc.credential_mode = 'platform_key'
              AND pc.vendor_id <> ''
              AND pc.called_at >= $3::timestamptz - $5 ${MS} AND pc.called_at < $4::timestamptz - $5 ${MS}
              AND NOT EXISTS (SELECT 1 FROM jobs.reconciliation_vendor_predictions vp
                               WHERE vp.provider_code = pc.provider_code AND vp.vendor_id = pc.vendor_id)
            ORDER BY pc.vendor_id, pc.job_id, pc.called_at
           ON CONFLICT DO NOTHING
           RETURNING kind`,
    values: [run.id, run.provider_code, run.window_start, run.window_end, slackMs],
  });
  return rows;
}

/** running → finished, with what it saw and found (the next window starts at its window_end). */
export async function finishReconciliationRun(
  db: Queryable,
  runId: string,
  counts: { predictionsSeen: number; findingsRecorded: number },
): Promise<ReconciliationRunRow> {
  const { rows } = await db.query<ReconciliationRunRow>({
    name: 'jobs.reconciliation_finish_run',
    text: `UPDATE jobs.reconciliation_runs
              SET status = 'finished', finished_at = now(), predictions_seen = $2, findings_recorded = $3
            WHERE id = $1
           RETURNING *`,
    values: [runId, counts.predictionsSeen, counts.findingsRecorded],
  });
  return rows[0]!;
}

/** Findings, newest first (keyset on the identity), filtered; one extra row says whether a page follows. */
export async function selectReconciliationFindings(
  db: Queryable,
  filter: { providerCode?: string; kind?: FindingKindWord; unacknowledgedOnly: boolean; beforeId?: string; limit: number },
): Promise<ReconciliationFindingRow[]> {
  const { rows } = await db.query<ReconciliationFindingRow>({
    name: 'jobs.reconciliation_list_findings',
    text: `SELECT * FROM jobs.reconciliation_findings
            WHERE ($1::varchar IS NULL OR provider_code = $1)
              AND ($2::varchar IS NULL OR kind = $2)
              AND (NOT $3::boolean OR acknowledged_at IS NULL)
              AND ($4::bigint IS NULL OR id < $4::bigint)
            ORDER BY id DESC
            LIMIT $5`,
    values: [filter.providerCode ?? null, filter.kind ?? null, filter.unacknowledgedOnly, filter.beforeId ?? null, filter.limit + 1],
  });
  return rows;
}

/**
 * Marks a finding seen by `operatorId`; the first acknowledgement stays (a repeat changes
 * nothing). Answers the finding as it is now, undefined for an unknown id.
 */
export async function acknowledgeReconciliationFinding(
  db: Queryable,
  findingId: string,
  operatorId: string,
): Promise<ReconciliationFindingRow | undefined> {
  const { rows } = await db.query<ReconciliationFindingRow>({
    name: 'jobs.reconciliation_acknowledge_finding',
    text: `WITH acknowledged AS (
             UPDATE jobs.reconciliation_findings SET acknowledged_at = now(), acknowledged_by = $2
              WHERE id = $1 AND acknowledged_at IS NULL
             RETURNING *)
           SELECT * FROM acknowledged
           UNION ALL
           SELECT * FROM jobs.reconciliation_findings WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM acknowledged)`,
    values: [findingId, operatorId],
  });
  return rows[0];
}

/** Open (unacknowledged) findings per provider and kind: the gauge and the admin list's total. */
export async function selectOpenFindingCounts(db: Queryable): Promise<{ provider_code: string; kind: FindingKindWord; open: number }[]> {
  const { rows } = await db.query<{ provider_code: string; kind: FindingKindWord; open: number }>({
    name: 'jobs.reconciliation_open_counts',
    text: `SELECT provider_code, kind, count(*)::int AS open FROM jobs.reconciliation_findings
            WHERE acknowledged_at IS NULL GROUP BY provider_code, kind`,
  });
  return rows;
}

/** Per provider, the latest finished run: when it finished and up to where the vendor is reconciled. */
export async function selectReconciliationCoverage(
  db: Queryable,
): Promise<{ provider_code: string; last_finished_at: Date; covered_until: Date; now: Date }[]> {
  const { rows } = await db.query<{ provider_code: string; last_finished_at: Date; covered_until: Date; now: Date }>({
    name: 'jobs.reconciliation_coverage',
    text: `SELECT provider_code, max(finished_at) AS last_finished_at, max(window_end) AS covered_until, now() AS now
             FROM jobs.reconciliation_runs WHERE status = 'finished' GROUP BY provider_code`,
  });
  return rows;
}

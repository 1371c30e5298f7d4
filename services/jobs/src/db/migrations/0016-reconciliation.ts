import { Migration } from '@atelier/orm';

/**
 * Reconciliation with the AI vendor (issue 29, point 4): the double-charge detector.
 *
 * - reconciliation_runs: one window of one provider's predictions, reconciled by one worker. At
 *   most one run per provider is `running` (a partial unique index), so two worker pods never
 *   reconcile one window; a run whose lease expired is `abandoned` and its window offered again.
 *   The covered history is the union of the `finished` runs' windows, each starting where the
 *   last one ended.
 * - reconciliation_vendor_predictions: what the vendor listed, one row per (provider, prediction),
 *   kept across runs (its latest status), so that a job's two predictions in two windows are
 *   still seen together.
 * - reconciliation_findings: what did not match (db/reconciliation-sql.ts states each rule).
 *   A finding is recorded once: unique per (provider_code, kind, vendor_id, job_id), job_id null
 *   for a prediction no job knows (two partial unique indexes, since a NULL never conflicts), and
 *   vendor_id '' for a job with two billed predictions (detail names them). An operator's
 *   acknowledgement records who and when.
 */
export class Reconciliation extends Migration {
  override up(): void {
    this.addSql(`
      CREATE TABLE jobs.reconciliation_runs (
        id                uuid          PRIMARY KEY,
        provider_code     varchar(64)   NOT NULL,
        window_start      timestamptz   NOT NULL,
        window_end        timestamptz   NOT NULL,
        status            varchar(16)   NOT NULL
                                        CONSTRAINT reconciliation_runs_status_known CHECK (status IN ('running', 'finished', 'abandoned')),
        worker_id         varchar(200)  NOT NULL,
        lease_expires_at  timestamptz   NOT NULL,
        started_at        timestamptz   NOT NULL DEFAULT now(),
        finished_at       timestamptz,
        predictions_seen  integer       NOT NULL DEFAULT 0 CONSTRAINT reconciliation_runs_predictions_seen_range CHECK (predictions_seen >= 0),
        findings_recorded integer       NOT NULL DEFAULT 0 CONSTRAINT reconciliation_runs_findings_recorded_range CHECK (findings_recorded >= 0),
        CONSTRAINT reconciliation_runs_window_order CHECK (window_end > window_start),
        CONSTRAINT reconciliation_runs_finished_at CHECK ((status = 'finished') = (finished_at IS NOT NULL))
      )`);
    // The lease: one running run per provider.
    this.addSql(`CREATE UNIQUE INDEX reconciliation_runs_one_running ON jobs.reconciliation_runs (provider_code) WHERE status = 'running'`);
    // Where the next window starts: the latest finished run of the provider.
    this.addSql(
      `CREATE INDEX reconciliation_runs_finished_by_end ON jobs.reconciliation_runs (provider_code, window_end) WHERE status = 'finished'`,
    );

    this.addSql(`
      CREATE TABLE jobs.reconciliation_vendor_predictions (
        provider_code    varchar(64)   NOT NULL,
        vendor_id        varchar(128)  NOT NULL,
        status           varchar(16)   NOT NULL,
        idempotency_key  varchar(200),
        created_at       timestamptz   NOT NULL,
        predict_time_ms  bigint        CONSTRAINT reconciliation_vendor_predictions_predict_time_range CHECK (predict_time_ms >= 0),
        images           integer       CONSTRAINT reconciliation_vendor_predictions_images_range CHECK (images >= 0),
        -- The job it belongs to, as the last run that listed it matched it (null: none).
        job_id           uuid,
        last_run_id      uuid          NOT NULL,
        seen_at          timestamptz   NOT NULL DEFAULT now(),
        CONSTRAINT reconciliation_vendor_predictions_pkey PRIMARY KEY (provider_code, vendor_id)
      )`);
    this.addSql(`CREATE INDEX reconciliation_vendor_predictions_by_run ON jobs.reconciliation_vendor_predictions (last_run_id)`);
    // A job's predictions at the vendor, whichever runs listed them.
    this.addSql(`CREATE INDEX reconciliation_vendor_predictions_by_job ON jobs.reconciliation_vendor_predictions (provider_code, job_id)`);

    this.addSql(`
      CREATE TABLE jobs.reconciliation_findings (
        id               bigint        GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        provider_code    varchar(64)   NOT NULL,
        kind             varchar(40)   NOT NULL
                                       CONSTRAINT reconciliation_findings_kind_known
                                       CHECK (kind IN ('prediction_without_job', 'job_with_two_billable_predictions', 'ledger_unknown_to_vendor')),
        vendor_id        varchar(128)  NOT NULL DEFAULT '',
        job_id           uuid,
        detail           varchar(1000) NOT NULL DEFAULT '',
        run_id           uuid          NOT NULL,
        found_at         timestamptz   NOT NULL DEFAULT now(),
        acknowledged_at  timestamptz,
        acknowledged_by  varchar(128),  -- an operator id: MAX_USER_ID_LENGTH, as a user id
        CONSTRAINT reconciliation_findings_acknowledged CHECK ((acknowledged_at IS NULL) = (acknowledged_by IS NULL))
      )`);
    this.addSql(
      `CREATE UNIQUE INDEX reconciliation_findings_once_per_job ON jobs.reconciliation_findings (provider_code, kind, vendor_id, job_id) WHERE job_id IS NOT NULL`,
    );
    this.addSql(
      `CREATE UNIQUE INDEX reconciliation_findings_once_without_job ON jobs.reconciliation_findings (provider_code, kind, vendor_id) WHERE job_id IS NULL`,
    );
    // The ledger's submit calls (migration 0014) by prediction and by time: a run finds the job of
    // each listed prediction, and the window's submits, without reading the whole ledger.
    this.addSql(
      `CREATE INDEX provider_calls_submit_by_vendor_id ON jobs.provider_calls (provider_code, vendor_id) WHERE call_kind = 'submit'`,
    );
    this.addSql(`CREATE INDEX provider_calls_submit_by_time ON jobs.provider_calls (provider_code, called_at) WHERE call_kind = 'submit'`);
    // The open findings (the gauge, the console's badge).
    this.addSql(`CREATE INDEX reconciliation_findings_open ON jobs.reconciliation_findings (id) WHERE acknowledged_at IS NULL`);
  }
}

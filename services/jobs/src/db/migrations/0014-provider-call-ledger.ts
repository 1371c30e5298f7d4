import { Migration } from '@atelier/orm';

/**
 * The usage ledger (ADR-003 §5.7): one row per call a worker made to an AI vendor — submit, poll,
 * cancel, output fetch — written through the execution API (RecordProviderCalls), never by the
 * worker itself.
 *
 * - A retried write never doubles a row: (request_key, call_kind, vendor_id) is unique, and the
 *   worker chooses request_key once per call.
 * - What the vendor bills for a prediction (predict time, images) sits on exactly one row per
 *   (provider_code, vendor_id): the first row that reported it is `billable`, later reports of the
 *   same prediction (a poll after a takeover) are kept but not billed again. A job's cost is the sum
 *   of its billable rows.
 * - cost_micros is the price in force at called_at (catalog's model prices) applied to the units,
 *   in millionths of `currency`; recomputable from the units.
 * - credential_mode says whose account paid: only `platform_key` rows count against our budgets.
 * - user_id is the job's owner, for spend per user; it is cleared when the account is deleted (the
 *   financial record stays).
 */
export class ProviderCallLedger extends Migration {
  override up(): void {
    this.addSql(`
      CREATE TABLE jobs.provider_calls (
        id               bigint        GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        job_id           uuid          NOT NULL,
        user_id          varchar(128),
        attempt          smallint      NOT NULL CONSTRAINT provider_calls_attempt_range CHECK (attempt BETWEEN 0 AND 20),
        call_kind        varchar(16)   NOT NULL
                                       CONSTRAINT provider_calls_call_kind_known CHECK (call_kind IN ('submit', 'poll', 'cancel', 'output_fetch')),
        request_key      varchar(200)  NOT NULL CONSTRAINT provider_calls_request_key_format CHECK (char_length(request_key) BETWEEN 1 AND 200),
        vendor_id        varchar(128)  NOT NULL DEFAULT '',
        provider_code    varchar(64)   NOT NULL,
        provider_model   varchar(128)  NOT NULL,
        model_version    varchar(64)   NOT NULL,
        model_id         uuid,
        credential_mode  varchar(16)   NOT NULL
                                       CONSTRAINT provider_calls_credential_mode_known CHECK (credential_mode IN ('platform_key', 'user_key')),
        credential_id    varchar(128)  NOT NULL,
        outcome          varchar(16)   NOT NULL
                                       CONSTRAINT provider_calls_outcome_known CHECK (outcome IN ('ok', 'rate_limited', 'refused', 'unavailable', 'aborted')),
        error_code       varchar(64),
        http_status      smallint,
        latency_ms       integer       NOT NULL CONSTRAINT provider_calls_latency_range CHECK (latency_ms >= 0),
        predict_time_ms  integer       CONSTRAINT provider_calls_predict_time_range CHECK (predict_time_ms >= 0),
        images           integer       CONSTRAINT provider_calls_images_range CHECK (images >= 0),
        billable         boolean       NOT NULL DEFAULT false,
        cost_micros      bigint        CONSTRAINT provider_calls_cost_range CHECK (cost_micros >= 0),
        currency         varchar(3)    CONSTRAINT provider_calls_currency_format CHECK (currency ~ '^[A-Z]{3}$'),
        called_at        timestamptz   NOT NULL,
        recorded_at      timestamptz   NOT NULL DEFAULT now(),

        CONSTRAINT provider_calls_write_once UNIQUE (request_key, call_kind, vendor_id),
        CONSTRAINT provider_calls_cost_has_currency CHECK ((cost_micros IS NULL) = (currency IS NULL)),
        CONSTRAINT provider_calls_only_billable_cost CHECK (billable OR cost_micros IS NULL)
      )`);
    // One bill per vendor prediction: the double-charge guard of the ledger itself.
    this.addSql(
      `CREATE UNIQUE INDEX provider_calls_one_bill_per_prediction ON jobs.provider_calls (provider_code, vendor_id) WHERE billable`,
    );
    // A job's calls, in order (the job page, the journey test).
    this.addSql(`CREATE INDEX provider_calls_by_job ON jobs.provider_calls (job_id, called_at)`);
    // Spend per day / provider / model / user reads only billable rows of a window.
    this.addSql(`CREATE INDEX provider_calls_billed_by_time ON jobs.provider_calls (called_at, provider_code) WHERE billable`);
  }
}

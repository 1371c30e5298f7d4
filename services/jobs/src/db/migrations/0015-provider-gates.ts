import { Migration } from '@atelier/orm';

/**
 * The gates in front of a provider (docs/budgets-and-limits.md): may this provider's job start,
 * may this call to the vendor go now?
 *
 * - spend_budgets: a daily spend limit (UTC day) per provider, or per provider model. The spend is
 *   not stored: it is the sum of today's billable platform-key rows of jobs.provider_calls, read
 *   when a claim asks. `warned_on` is the UTC day the 80 % warning event was written (once a day).
 * - provider_limits: the vendor's own limits on our account: at most max_concurrent running jobs
 *   (a claimed job holds at most one open prediction), at most max_requests_per_second calls with
 *   `burst` in hand, shared by every worker pod.
 * - provider_gate_state: what every pod shares about a provider now: the request-rate token bucket
 *   and a vendor throttle (a 429's Retry-After: paused_until).
 *
 * provider_model '' is the whole provider (a primary key cannot hold NULL). Postgres rather than
 * JetStream KV: the concurrency cap is counted on the same rows as the leases (running jobs of the
 * provider), so a dead pod's slot frees with its lease (the reaper) and there is no second expiry
 * to keep in step; the budget is a sum over the ledger, which is here too.
 */
export class ProviderGates extends Migration {
  override up(): void {
    this.addSql(`
      CREATE TABLE jobs.spend_budgets (
        provider_code      varchar(64)  NOT NULL,
        provider_model     varchar(128) NOT NULL DEFAULT '',
        daily_limit_micros bigint       NOT NULL CONSTRAINT spend_budgets_limit_range CHECK (daily_limit_micros >= 0),
        currency           varchar(3)   NOT NULL CONSTRAINT spend_budgets_currency_format CHECK (currency ~ '^[A-Z]{3}$'),
        updated_by         varchar(128) NOT NULL,
        updated_at         timestamptz  NOT NULL DEFAULT now(),
        warned_on          date,
        CONSTRAINT spend_budgets_pkey PRIMARY KEY (provider_code, provider_model)
      )`);
    this.addSql(`
      CREATE TABLE jobs.provider_limits (
        provider_code           varchar(64)  NOT NULL,
        provider_model          varchar(128) NOT NULL DEFAULT '',
        max_concurrent          integer      CONSTRAINT provider_limits_concurrent_range CHECK (max_concurrent >= 0 AND max_concurrent <= 100000),
        max_requests_per_second integer      CONSTRAINT provider_limits_rate_range CHECK (max_requests_per_second >= 1 AND max_requests_per_second <= 100000),
        burst                   integer      CONSTRAINT provider_limits_burst_range CHECK (burst >= 1 AND burst <= 100000),
        updated_by              varchar(128) NOT NULL,
        updated_at              timestamptz  NOT NULL DEFAULT now(),
        CONSTRAINT provider_limits_pkey PRIMARY KEY (provider_code, provider_model),
        CONSTRAINT provider_limits_rate_on_provider CHECK (provider_model = '' OR max_requests_per_second IS NULL)
      )`);
    this.addSql(`
      CREATE TABLE jobs.provider_gate_state (
        provider_code       varchar(64)      NOT NULL CONSTRAINT provider_gate_state_pkey PRIMARY KEY,
        tokens              double precision NOT NULL DEFAULT 0,
        refilled_at         timestamptz      NOT NULL DEFAULT now(),
        paused_until        timestamptz,
        last_retry_after_ms integer          CONSTRAINT provider_gate_state_retry_after_range CHECK (last_retry_after_ms >= 0),
        throttled_at        timestamptz
      )`);
    // The concurrency cap counts a provider's running jobs under its advisory lock.
    this.addSql(
      `CREATE INDEX generation_jobs_running_provider_idx ON jobs.generation_jobs (provider_code_snapshot, provider_model_snapshot) WHERE status = 'running'`,
    );
  }
}

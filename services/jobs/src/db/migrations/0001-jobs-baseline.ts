import { Migration } from '@atelier/orm';

/**
 * The jobs schema. The job state machine lives here, in the database, twice over:
 *   - one CHECK branch per status says which columns a row in that status must and must not
 *     have (a running job has a lease, a succeeded one its output, a failed one its error …);
 *   - a trigger refuses any status change that is not a legal transition, so a terminal job
 *     can never change again even if application code is wrong.
 * Every transition also appends a job_events row and, when a worker or others must hear of it,
 * an outbox row, in the same transaction (see db/transitions/).
 */
export class JobsBaseline extends Migration {
  override up(): void {
    this.addSql(`
      CREATE TABLE jobs.generation_jobs (
        id                      uuid          PRIMARY KEY,
        user_id                 varchar(128)  NOT NULL,
        pet_id                  uuid,
        job_type                varchar(64)   NOT NULL CONSTRAINT generation_jobs_job_type_format CHECK (job_type ~ '^[a-z][a-z0-9_.]{1,63}$'),
        media_kind              varchar(16)   NOT NULL CONSTRAINT generation_jobs_media_kind_known CHECK (media_kind IN ('image', 'video')),
        queue                   varchar(16)   NOT NULL CONSTRAINT generation_jobs_queue_known CHECK (queue IN ('interactive', 'background')),
        priority                smallint      NOT NULL DEFAULT 0 CONSTRAINT generation_jobs_priority_range CHECK (priority BETWEEN -100 AND 100),
        model_id                uuid,
        style_id                uuid,
        input_asset_id          uuid,
        output_asset_id         uuid,
        expects_output          boolean       NOT NULL,
        prompt                  varchar(10000) NOT NULL DEFAULT '',
        negative_prompt         varchar(3000) NOT NULL DEFAULT '',
        width                   integer       CONSTRAINT generation_jobs_width_range CHECK (width BETWEEN 64 AND 8192),
        height                  integer       CONSTRAINT generation_jobs_height_range CHECK (height BETWEEN 64 AND 8192),
        parameters              jsonb         NOT NULL DEFAULT '{}'::jsonb
                                              CONSTRAINT generation_jobs_parameters_object CHECK (jsonb_typeof(parameters) = 'object'),
        provider_code_snapshot  varchar(64),
        provider_model_snapshot varchar(128),
        model_version_snapshot  varchar(64),
        style_code_snapshot     varchar(64),
        status                  varchar(16)   NOT NULL
                                              CONSTRAINT generation_jobs_status_known CHECK (status IN ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
        progress                smallint      NOT NULL DEFAULT 0 CONSTRAINT generation_jobs_progress_range CHECK (progress BETWEEN 0 AND 100),
        attempt_count           smallint      NOT NULL DEFAULT 0,
        max_attempts            smallint      NOT NULL CONSTRAINT generation_jobs_max_attempts_range CHECK (max_attempts BETWEEN 1 AND 20),
        provider_request_id     varchar(128),
        error_code              varchar(64),
        error_message           varchar(1000),
        internal_error_message  varchar(4000),
        idempotency_key         varchar(128)  NOT NULL,
        request_hash            bytea         NOT NULL,
        retry_of_job_id         uuid,
        next_attempt_at         timestamptz   NOT NULL,
        lease_owner             varchar(200),
        lease_expires_at        timestamptz,
        cancel_requested_at     timestamptz,
        created_at              timestamptz   NOT NULL DEFAULT now(),
        updated_at              timestamptz   NOT NULL DEFAULT now(),
        started_at              timestamptz,
        completed_at            timestamptz,
        version                 integer       NOT NULL DEFAULT 1 CONSTRAINT generation_jobs_version_positive CHECK (version >= 1),

        CONSTRAINT generation_jobs_user_idempotency_key UNIQUE (user_id, idempotency_key),
        CONSTRAINT generation_jobs_idempotency_key_format CHECK (idempotency_key = btrim(idempotency_key) AND char_length(idempotency_key) BETWEEN 1 AND 128),
        CONSTRAINT generation_jobs_request_hash_length CHECK (octet_length(request_hash) = 32),
        CONSTRAINT generation_jobs_attempts CHECK (attempt_count >= 0 AND attempt_count <= max_attempts),
        CONSTRAINT generation_jobs_model_snapshot CHECK (
          (model_id IS NULL) = (provider_code_snapshot IS NULL)
          AND (model_id IS NULL) = (provider_model_snapshot IS NULL)
          AND (model_id IS NULL) = (model_version_snapshot IS NULL)),
        CONSTRAINT generation_jobs_style_snapshot CHECK ((style_id IS NULL) = (style_code_snapshot IS NULL)),
        CONSTRAINT generation_jobs_lease_pair CHECK ((lease_owner IS NULL) = (lease_expires_at IS NULL)),
        CONSTRAINT generation_jobs_lease_after_start CHECK (lease_expires_at IS NULL OR started_at IS NULL OR lease_expires_at > started_at),
        CONSTRAINT generation_jobs_completed_after_created CHECK (completed_at IS NULL OR completed_at >= created_at),
        CONSTRAINT generation_jobs_state CHECK (
             (status = 'queued' AND progress = 0 AND started_at IS NULL AND completed_at IS NULL
              AND output_asset_id IS NULL AND error_code IS NULL
              AND lease_owner IS NULL AND lease_expires_at IS NULL)
          OR (status = 'running' AND started_at IS NOT NULL AND completed_at IS NULL
              AND output_asset_id IS NULL AND error_code IS NULL
              AND lease_owner IS NOT NULL AND lease_expires_at IS NOT NULL)
          OR (status = 'succeeded' AND progress = 100 AND started_at IS NOT NULL AND completed_at IS NOT NULL
              AND (output_asset_id IS NOT NULL OR NOT expects_output) AND error_code IS NULL
              AND lease_owner IS NULL AND lease_expires_at IS NULL)
          OR (status = 'failed' AND completed_at IS NOT NULL AND error_code IS NOT NULL
              AND output_asset_id IS NULL AND lease_owner IS NULL AND lease_expires_at IS NULL)
          OR (status = 'cancelled' AND completed_at IS NOT NULL
              AND lease_owner IS NULL AND lease_expires_at IS NULL))
      )`);
    this.addSql(`
      CREATE UNIQUE INDEX generation_jobs_provider_request_key ON jobs.generation_jobs (provider_code_snapshot, provider_request_id)
        WHERE provider_request_id IS NOT NULL`);
    this.addSql(`CREATE INDEX generation_jobs_user_created_idx ON jobs.generation_jobs (user_id, created_at DESC, id DESC)`);
    this.addSql(`CREATE INDEX generation_jobs_created_idx ON jobs.generation_jobs (created_at DESC, id DESC)`);
    this.addSql(`
      CREATE INDEX generation_jobs_queued_idx ON jobs.generation_jobs (priority DESC, next_attempt_at, created_at, id)
        WHERE status = 'queued'`);
    this.addSql(`CREATE INDEX generation_jobs_running_lease_idx ON jobs.generation_jobs (lease_expires_at, id) WHERE status = 'running'`);

    this.addSql(`
      CREATE FUNCTION jobs.refuse_illegal_job_transition() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF OLD.status IN ('succeeded', 'failed', 'cancelled') THEN
          RAISE EXCEPTION 'job % is % and can no longer change', OLD.id, OLD.status
            USING ERRCODE = 'check_violation', CONSTRAINT = 'generation_jobs_transition';
        END IF;
        IF NEW.status <> OLD.status AND (OLD.status, NEW.status) NOT IN (
             ('queued', 'running'), ('running', 'succeeded'), ('running', 'failed'),
             ('running', 'queued'), ('queued', 'cancelled'), ('running', 'cancelled')) THEN
          RAISE EXCEPTION 'illegal job transition % -> % for job %', OLD.status, NEW.status, OLD.id
            USING ERRCODE = 'check_violation', CONSTRAINT = 'generation_jobs_transition';
        END IF;
        RETURN NEW;
      END $$`);
    this.addSql(`
      CREATE TRIGGER generation_jobs_transition BEFORE UPDATE ON jobs.generation_jobs
        FOR EACH ROW EXECUTE FUNCTION jobs.refuse_illegal_job_transition()`);

    this.addSql(`
      CREATE TABLE jobs.job_events (
        id          bigint       GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        job_id      uuid         NOT NULL REFERENCES jobs.generation_jobs (id) ON DELETE CASCADE,
        from_status varchar(16),
        to_status   varchar(16)  NOT NULL,
        attempt     smallint     NOT NULL,
        actor       varchar(220) NOT NULL,
        error_class varchar(32),
        error_code  varchar(64),
        detail      varchar(500),
        occurred_at timestamptz  NOT NULL DEFAULT now()
      )`);
    this.addSql(`CREATE INDEX job_events_job_idx ON jobs.job_events (job_id, id)`);

    this.addSql(`
      CREATE TABLE jobs.outbox (
        id            bigint        GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        aggregate_id  uuid          NOT NULL,
        event_type    varchar(64)   NOT NULL,
        subject       varchar(255)  NOT NULL,
        dedupe_key    varchar(255)  NOT NULL CONSTRAINT outbox_dedupe_key_key UNIQUE,
        payload       jsonb         NOT NULL CONSTRAINT outbox_payload_object CHECK (jsonb_typeof(payload) = 'object'),
        status        varchar(16)   NOT NULL DEFAULT 'pending'
                                    CONSTRAINT outbox_status_known CHECK (status IN ('pending', 'processing', 'published', 'dead')),
        attempt_count integer       NOT NULL DEFAULT 0 CONSTRAINT outbox_attempts_positive CHECK (attempt_count >= 0),
        available_at  timestamptz   NOT NULL DEFAULT now(),
        locked_by     varchar(220),
        locked_at     timestamptz,
        last_error    varchar(1000),
        created_at    timestamptz   NOT NULL DEFAULT now(),
        published_at  timestamptz,
        CONSTRAINT outbox_lock_while_processing CHECK ((status = 'processing') = (locked_by IS NOT NULL) AND (locked_by IS NULL) = (locked_at IS NULL)),
        CONSTRAINT outbox_published_at CHECK ((status = 'published') = (published_at IS NOT NULL))
      )`);
    this.addSql(`CREATE INDEX outbox_due_idx ON jobs.outbox (available_at, id) WHERE status = 'pending'`);
    this.addSql(`CREATE INDEX outbox_processing_idx ON jobs.outbox (locked_at) WHERE status = 'processing'`);
    this.addSql(`CREATE INDEX outbox_dead_idx ON jobs.outbox (id) WHERE status = 'dead'`);
    this.addSql(`CREATE INDEX outbox_published_idx ON jobs.outbox (published_at) WHERE status = 'published'`);
  }
}

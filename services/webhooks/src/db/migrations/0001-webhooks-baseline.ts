import { Migration } from '@atelier/orm';

/**
 * webhooks.endpoints, webhooks.deliveries and webhooks.delivery_attempts.
 *
 * UNIQUE(endpoint_id, event_id) is what makes the fan-out idempotent: a lifecycle event delivered
 * twice by NATS inserts one delivery per endpoint, so its id — the webhook-id header — is stable
 * and a receiver dedupes by it. A pending delivery always has next_attempt_at: claiming it pushes
 * next_attempt_at one lease ahead, so a sender that dies mid-attempt leaves it due again, never
 * stranded. schedule_step counts attempts since the delivery was created or last replayed (the
 * retry schedule's index); attempt_count counts them all and numbers the attempts' rows.
 *
 * The secret is stored as given to the integrator (whsec_…): signing needs it. It never leaves
 * the service except in CreateEndpoint's answer.
 */
export class WebhooksBaseline extends Migration {
  override up(): void {
    this.addSql(`
      CREATE TABLE webhooks.endpoints (
        id          uuid           PRIMARY KEY,
        user_id     varchar(128)   NOT NULL CONSTRAINT endpoints_user_present CHECK (user_id <> ''),
        url         varchar(2048)  NOT NULL CONSTRAINT endpoints_url_http CHECK (url ~ '^https?://'),
        event_types text[]         NOT NULL DEFAULT '{}',
        description varchar(256)   NOT NULL DEFAULT '',
        secret      varchar(128)   NOT NULL CONSTRAINT endpoints_secret_prefixed CHECK (left(secret, 6) = 'whsec_'),
        created_at  timestamptz(3) NOT NULL DEFAULT now()
      )`);
    this.addSql(`CREATE INDEX endpoints_user_created_idx ON webhooks.endpoints (user_id, created_at DESC)`);

    this.addSql(`
      CREATE TABLE webhooks.deliveries (
        id              uuid           PRIMARY KEY,
        endpoint_id     uuid           NOT NULL REFERENCES webhooks.endpoints (id) ON DELETE CASCADE,
        event_id        varchar(200)   NOT NULL CONSTRAINT deliveries_event_present CHECK (event_id <> ''),
        event_type      varchar(64)    NOT NULL,
        body            text           NOT NULL,
        status          varchar(16)    NOT NULL DEFAULT 'pending'
                        CONSTRAINT deliveries_status_known CHECK (status IN ('pending', 'delivered', 'failed')),
        attempt_count   integer        NOT NULL DEFAULT 0 CONSTRAINT deliveries_attempts_non_negative CHECK (attempt_count >= 0),
        schedule_step   integer        NOT NULL DEFAULT 0 CONSTRAINT deliveries_step_non_negative CHECK (schedule_step >= 0),
        next_attempt_at timestamptz(3),
        created_at      timestamptz(3) NOT NULL DEFAULT now(),
        delivered_at    timestamptz(3),
        CONSTRAINT deliveries_pending_due CHECK ((status = 'pending') = (next_attempt_at IS NOT NULL)),
        CONSTRAINT deliveries_delivered_at CHECK ((status = 'delivered') = (delivered_at IS NOT NULL)),
        CONSTRAINT deliveries_endpoint_event_key UNIQUE (endpoint_id, event_id)
      )`);
    // The sender's claim: pending deliveries by due time.
    this.addSql(`CREATE INDEX deliveries_due_idx ON webhooks.deliveries (next_attempt_at) WHERE status = 'pending'`);
    // An endpoint's deliveries newest first, read with a (created_at, id) keyset.
    this.addSql(`CREATE INDEX deliveries_endpoint_created_idx ON webhooks.deliveries (endpoint_id, created_at DESC, id DESC)`);

    this.addSql(`
      CREATE TABLE webhooks.delivery_attempts (
        delivery_id uuid           NOT NULL REFERENCES webhooks.deliveries (id) ON DELETE CASCADE,
        attempt     integer        NOT NULL CONSTRAINT delivery_attempts_attempt_positive CHECK (attempt >= 1),
        started_at  timestamptz(3) NOT NULL,
        duration_ms integer        NOT NULL CONSTRAINT delivery_attempts_duration_non_negative CHECK (duration_ms >= 0),
        status_code integer        NOT NULL DEFAULT 0,
        error       varchar(500),
        CONSTRAINT delivery_attempts_pkey PRIMARY KEY (delivery_id, attempt)
      )`);
  }
}

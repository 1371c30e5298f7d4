import type { ClaimedOutboxRow } from './outbox-row.js';

/** A row of jobs.generation_jobs as pg returns it. */
export interface JobRow {
  id: string;
  user_id: string;
  pet_id: string | null;
  job_type: string;
  media_kind: string;
  queue: 'interactive' | 'background';
  priority: number;
  model_id: string | null;
  style_id: string | null;
  input_asset_id: string | null;
  output_asset_id: string | null;
  output_sha256: string | null;
  expects_output: boolean;
  prompt: string;
  negative_prompt: string;
  width: number | null;
  height: number | null;
  parameters: Record<string, unknown>;
  provider_code_snapshot: string | null;
  provider_model_snapshot: string | null;
  model_version_snapshot: string | null;
  style_code_snapshot: string | null;
  status: string;
  progress: number;
  attempt_count: number;
  max_attempts: number;
  provider_request_id: string | null;
  provider_request_generation: number;
  error_code: string | null;
  error_message: string | null;
  internal_error_message: string | null;
  idempotency_key: string;
  request_hash: Buffer;
  retry_of_job_id: string | null;
  next_attempt_at: Date;
  lease_owner: string | null;
  lease_expires_at: Date | null;
  cancel_requested_at: Date | null;
  created_at: Date;
  updated_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
  version: number;
  /** W3C trace context of the creating request (traceparent, tracestate), or null. */
  trace_context: Record<string, string> | null;
  /** No worker may start the job after it (domain/start-deadline.ts); null: no deadline. */
  start_deadline_at: Date | null;
  /** What the vendor is asked (domain/effective-parameters.ts); null for jobs created before migration 0012. */
  effective_parameters: Record<string, unknown> | null;
  effective_prompt: string | null;
  /** Whose vendor key runs the job (migration 0017): platform_key, or user_key with credential_id. */
  credential_mode: 'platform_key' | 'user_key';
  credential_id: string | null;
  /** What retention removed of what the user wrote (db/redaction-sql.ts), and when; null: nothing yet. */
  redaction_version: number | null;
  redacted_at: Date | null;
  /** When retention deleted the input image (or found it gone); null: not (yet). */
  input_removed_at: Date | null;
  /** When the input image was last found in a post and kept. */
  input_kept_at: Date | null;
  /**
   * Not a column: the outbox rows the transition that answered this row wrote claimed for this
   * replica's relay, which publishes them after the commit (transitions/transition-sql.ts, announce/announce.ts).
   */
  claimed_outbox?: ClaimedOutboxRow[] | null;
}

/** A row of jobs.job_events. */
export interface JobEventRow {
  id: string;
  job_id: string;
  from_status: string | null;
  to_status: string;
  attempt: number;
  actor: string;
  error_class: string | null;
  error_code: string | null;
  detail: string | null;
  occurred_at: Date;
}

/** What a job's view needs of each of its events. */
export type JobHistoryEntry = Pick<JobEventRow, 'from_status' | 'to_status' | 'attempt' | 'error_code' | 'occurred_at'>;

/** Where a transition's outbox rows are published (from the NATS topology). */
/** What a statement needs to write product events: where they go, how user_ref is made, which job types are creations. */
export interface ProductEventSubjects {
  /** `<root>.product.events.` — the event name is appended. */
  subjectPrefix: string;
  /** UserRefKey.sqlPads() of PRODUCT_EVENTS_USER_KEY: as secret as the key, bound as a parameter only. */
  userRefPads: Buffer;
  /** The job types whose jobs are users' creations (not operator-only): the others write no product event. */
  jobTypes: readonly string[];
}

export interface OutboxSubjects {
  dispatchInteractive: string;
  dispatchBackground: string;
  /** `<root>.jobs.events.` — the event type is appended. */
  eventPrefix: string;
  /** Where "cancel this prediction at the vendor" tasks go (ProviderCancel). */
  providerCancel: string;
  /** Where AccountDeletedEvent goes (RequestAccountDeletion). */
  accountDeleted: string;
  /** The product events (creation_job_*) the create and end transitions write (libs/outbox). */
  productEvents: ProductEventSubjects;
  /**
   * The relay that publishes the statement's due rows right after its commit (they are written
   * claimed by it: transitions/transition-sql.ts); absent or null, they wait as `pending` for any relay.
   */
  claimFor?: string | null;
}

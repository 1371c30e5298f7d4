import { MAX_IMAGE_SIDE_PX, MIN_IMAGE_SIDE_PX } from '@atelier/images';
import { defineEntity, p } from '@atelier/orm';
import {
  MAX_EFFECTIVE_PROMPT_LENGTH,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  MAX_MODEL_VERSION_LENGTH,
  MAX_NEGATIVE_PROMPT_LENGTH,
  MAX_PROMPT_LENGTH,
  MAX_PROVIDER_MODEL_LENGTH,
  MAX_USER_ID_LENGTH,
} from '@atelier/validation';

/**
 * jobs.generation_jobs. The state machine is in the table twice over: generation_jobs_state says
 * which columns a row in each status must and must not have, and the trigger
 * generation_jobs_transition refuses any change to a terminal job and any status change that is
 * not a legal transition.
 */
export const GenerationJobEntity = defineEntity({
  name: 'GenerationJob',
  tableName: 'generation_jobs',
  properties: {
    id: p.uuid().primary(),
    userId: p.string().length(MAX_USER_ID_LENGTH),
    petId: p.uuid().nullable(),
    jobType: p.string().length(64),
    mediaKind: p.string().length(16),
    queue: p.string().length(16),
    // Deprecated (migration 0007): orders nothing; kept so a release running beside this one can write it.
    priority: p.smallint().default(0),
    modelId: p.uuid().nullable(),
    styleId: p.uuid().nullable(),
    inputAssetId: p.uuid().nullable(),
    outputAssetId: p.uuid().nullable(),
    // The output's SHA-256, lower-case hex, from the asset media checked at completion (migration 0019).
    outputSha256: p.string().length(64).columnType('char(64)').nullable(),
    expectsOutput: p.boolean(),
    prompt: p.string().length(MAX_PROMPT_LENGTH).default(''),
    negativePrompt: p.string().length(MAX_NEGATIVE_PROMPT_LENGTH).default(''),
    width: p.integer().nullable(),
    height: p.integer().nullable(),
    parameters: p.json<Record<string, unknown>>().defaultRaw(`'{}'::jsonb`),
    providerCodeSnapshot: p.string().length(64).nullable(),
    providerModelSnapshot: p.string().length(MAX_PROVIDER_MODEL_LENGTH).nullable(),
    modelVersionSnapshot: p.string().length(MAX_MODEL_VERSION_LENGTH).nullable(),
    styleCodeSnapshot: p.string().length(64).nullable(),
    status: p.string().length(16),
    progress: p.smallint().default(0),
    attemptCount: p.smallint().default(0),
    maxAttempts: p.smallint(),
    providerRequestId: p.string().length(128).nullable(),
    errorCode: p.string().length(64).nullable(),
    errorMessage: p.string().length(1000).nullable(),
    internalErrorMessage: p.string().length(4000).nullable(),
    idempotencyKey: p.string().length(MAX_IDEMPOTENCY_KEY_LENGTH),
    requestHash: p.blob(),
    retryOfJobId: p.uuid().nullable(),
    nextAttemptAt: p.datetime(),
    leaseOwner: p.string().length(200).nullable(),
    leaseExpiresAt: p.datetime().nullable(),
    cancelRequestedAt: p.datetime().nullable(),
    createdAt: p.datetime().defaultRaw('now()'),
    updatedAt: p.datetime().defaultRaw('now()'),
    startedAt: p.datetime().nullable(),
    completedAt: p.datetime().nullable(),
    version: p.integer().default(1),
    providerRequestGeneration: p.smallint().default(0),
    traceContext: p.json<Record<string, string>>().nullable(),
    // No worker may start the job after it (migration 0010, domain/start-deadline.ts).
    startDeadlineAt: p.datetime().nullable(),
    // What the vendor is asked, fixed at create (migration 0012, domain/effective-parameters.ts).
    effectiveParameters: p.json<Record<string, unknown>>().nullable(),
    // A prompt + ", " + a style's preset.
    effectivePrompt: p.string().length(MAX_EFFECTIVE_PROMPT_LENGTH).nullable(),
    // Whose vendor account runs the job, and which of the user's keys (migration 0017): never the key.
    credentialMode: p.string().length(16).default('platform_key'),
    credentialId: p.uuid().nullable(),
    // Retention (migration 0018, docs/retention.md): what was redacted and when; the input image's fate.
    redactionVersion: p.smallint().nullable(),
    redactedAt: p.datetime().nullable(),
    inputRemovedAt: p.datetime().nullable(),
    inputKeptAt: p.datetime().nullable(),
  },
  uniques: [
    { name: 'generation_jobs_user_idempotency_key', properties: ['userId', 'idempotencyKey'] },
    {
      name: 'generation_jobs_provider_request_key',
      properties: ['providerCodeSnapshot', 'providerRequestId'],
      where: 'provider_request_id IS NOT NULL',
    },
  ],
  indexes: [
    // Raw DDL as Postgres prints it: MikroORM 7.2 reads `id DESC` after a column named `…_id`
    // back as ascending (see schemaDrift, @atelier/orm).
    {
      name: 'generation_jobs_user_created_idx',
      expression: 'CREATE INDEX generation_jobs_user_created_idx ON jobs.generation_jobs USING btree (user_id, created_at DESC, id DESC)',
    },
    {
      name: 'generation_jobs_created_idx',
      columns: [
        { name: 'created_at', sort: 'DESC' },
        { name: 'id', sort: 'DESC' },
      ],
    },
    { name: 'generation_jobs_running_lease_idx', properties: ['leaseExpiresAt', 'id'], where: `status = 'running'` },
    // A provider's concurrency cap counts its running jobs (migration 0015, db/provider-gates-sql.ts).
    {
      name: 'generation_jobs_running_provider_idx',
      properties: ['providerCodeSnapshot', 'providerModelSnapshot'],
      where: `status = 'running'`,
    },
    // The quota's in-flight count and the metrics' queue depth: as small as the live set.
    { name: 'generation_jobs_in_flight_user_idx', properties: ['userId'], where: `status IN ('queued', 'running')` },
    // The dispatch order, led by the queue: a queued job's position is an index range count.
    {
      name: 'generation_jobs_dispatch_order_idx',
      properties: ['queue', 'nextAttemptAt', 'createdAt', 'id'],
      where: `status = 'queued'`,
    },
    // The start-deadline sweep: only the jobs it may end.
    {
      name: 'generation_jobs_start_deadline_idx',
      properties: ['startDeadlineAt'],
      where: `status = 'queued' AND attempt_count = 0 AND start_deadline_at IS NOT NULL`,
    },
    // Retention (migration 0018): what is still due, oldest first; and who else uses an input image.
    {
      name: 'generation_jobs_redaction_due_idx',
      properties: ['completedAt', 'id'],
      where: `redaction_version IS NULL AND completed_at IS NOT NULL`,
    },
    {
      name: 'generation_jobs_input_due_idx',
      properties: ['completedAt', 'id'],
      where: `input_asset_id IS NOT NULL AND input_removed_at IS NULL AND completed_at IS NOT NULL`,
    },
    { name: 'generation_jobs_input_asset_idx', properties: ['inputAssetId'], where: `input_asset_id IS NOT NULL` },
  ],
  // Raw DDL as Postgres prints it: MikroORM compares a trigger's body only when its function
  // follows MikroORM's naming (<table>_<trigger>_fn). The function, refuse_illegal_job_transition,
  // is defined by migration 0001 and not described here: MikroORM 7.2 reads a function that
  // returns trigger back only as the body of a trigger it named, so one declared here (as a
  // routine) would always look missing.
  triggers: [
    {
      name: 'generation_jobs_transition',
      timing: 'before',
      events: ['update'],
      forEach: 'row',
      expression:
        'CREATE TRIGGER generation_jobs_transition BEFORE UPDATE ON jobs.generation_jobs FOR EACH ROW EXECUTE FUNCTION jobs.refuse_illegal_job_transition()',
    },
  ],
  // A range is written as the two comparisons Postgres stores a BETWEEN as: MikroORM compares
  // check expressions as normalised text.
  checks: [
    { name: 'generation_jobs_credential_mode_known', expression: `credential_mode IN ('platform_key', 'user_key')` },
    { name: 'generation_jobs_user_key_has_credential', expression: `(credential_mode = 'user_key') = (credential_id IS NOT NULL)` },
    {
      // JOB_TYPE_PATTERN (libs/job-types) without a regular expression, which Postgres runs three
      // times slower on every update (migration 0021; entities.integration.test.ts holds them equal).
      name: 'generation_jobs_job_type_format',
      expression: `char_length(job_type) >= 2 AND char_length(job_type) <= 64
        AND strpos('abcdefghijklmnopqrstuvwxyz', left(job_type, 1)) > 0
        AND ltrim(job_type, 'abcdefghijklmnopqrstuvwxyz0123456789_.') = ''`,
    },
    { name: 'generation_jobs_media_kind_known', expression: `media_kind IN ('image', 'video')` },
    { name: 'generation_jobs_queue_known', expression: `queue IN ('interactive', 'background')` },
    { name: 'generation_jobs_priority_range', expression: 'priority >= -100 AND priority <= 100' },
    { name: 'generation_jobs_width_range', expression: `width >= ${MIN_IMAGE_SIDE_PX} AND width <= ${MAX_IMAGE_SIDE_PX}` },
    { name: 'generation_jobs_height_range', expression: `height >= ${MIN_IMAGE_SIDE_PX} AND height <= ${MAX_IMAGE_SIDE_PX}` },
    { name: 'generation_jobs_parameters_object', expression: `jsonb_typeof(parameters) = 'object'` },
    {
      name: 'generation_jobs_redaction_pair',
      expression: '(redaction_version IS NULL) = (redacted_at IS NULL) AND (redaction_version IS NULL OR redaction_version >= 1)',
    },
    {
      name: 'generation_jobs_status_known',
      expression: `status IN ('queued', 'running', 'succeeded', 'failed', 'cancelled')`,
    },
    { name: 'generation_jobs_progress_range', expression: 'progress >= 0 AND progress <= 100' },
    { name: 'generation_jobs_max_attempts_range', expression: 'max_attempts >= 1 AND max_attempts <= 20' },
    { name: 'generation_jobs_version_positive', expression: 'version >= 1' },
    {
      name: 'generation_jobs_idempotency_key_format',
      expression: `idempotency_key = btrim(idempotency_key) AND char_length(idempotency_key) >= 1 AND char_length(idempotency_key) <= ${MAX_IDEMPOTENCY_KEY_LENGTH}`,
    },
    { name: 'generation_jobs_request_hash_length', expression: 'octet_length(request_hash) = 32' },
    { name: 'generation_jobs_attempts', expression: 'attempt_count >= 0 AND attempt_count <= max_attempts' },
    {
      name: 'generation_jobs_model_snapshot',
      expression: `(model_id IS NULL) = (provider_code_snapshot IS NULL)
        AND (model_id IS NULL) = (provider_model_snapshot IS NULL)
        AND (model_id IS NULL) = (model_version_snapshot IS NULL)`,
    },
    { name: 'generation_jobs_style_snapshot', expression: '(style_id IS NULL) = (style_code_snapshot IS NULL)' },
    { name: 'generation_jobs_lease_pair', expression: '(lease_owner IS NULL) = (lease_expires_at IS NULL)' },
    {
      name: 'generation_jobs_lease_after_start',
      expression: 'lease_expires_at IS NULL OR started_at IS NULL OR lease_expires_at > started_at',
    },
    { name: 'generation_jobs_completed_after_created', expression: 'completed_at IS NULL OR completed_at >= created_at' },
    {
      name: 'generation_jobs_state',
      expression: `(status = 'queued' AND progress = 0 AND started_at IS NULL AND completed_at IS NULL
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
          AND lease_owner IS NULL AND lease_expires_at IS NULL)`,
    },
    { name: 'generation_jobs_provider_request_generation_positive', expression: 'provider_request_generation >= 0' },
    {
      name: 'generation_jobs_trace_context_shape',
      expression: `trace_context IS NULL OR (jsonb_typeof(trace_context) = 'object' AND octet_length(trace_context::text) <= 1024)`,
    },
    { name: 'generation_jobs_output_sha256_hex', expression: `output_sha256 ~ '^[0-9a-f]{64}$'` },
    { name: 'generation_jobs_start_deadline_after_created', expression: 'start_deadline_at IS NULL OR start_deadline_at > created_at' },
  ],
});

import { DEFAULT_PAGE_SIZE, MAX_IDEMPOTENCY_KEY_LENGTH, MAX_PAGE_SIZE } from '@atelier/validation';
import {
  assetPurposes,
  assetStatuses,
  errorClasses,
  jobQueues,
  jobStatuses,
  outboxReplayResults,
  outboxStatuses,
  postCategories,
  postStatuses,
} from './api-enums.js';

/**
 * JSON Schemas of the API: requests are validated against them (unknown fields, wrong types and
 * oversize strings are refused with the field named) and responses serialised by them; the
 * OpenAPI document is generated from them. Shared shapes are registered once by $id.
 */

const uuid = { type: 'string', format: 'uuid' } as const;
const dateTime = { type: 'string', format: 'date-time' } as const;
/**
 * An object or null. Written as a type list, not `anyOf`: fast-json-stringify serialises a type
 * list with a typeof check, while every `anyOf` costs the serializer an Ajv instance of its own
 * (memory, start-up) and an Ajv validation of the value on every response.
 */
const nullable = <T extends { type: string }>(schema: T) => ({ ...schema, type: [schema.type, 'null'] });
const nullableString = { type: ['string', 'null'] } as const;
const nullableInteger = { type: ['integer', 'null'] } as const;
const nullableDateTime = { type: ['string', 'null'], format: 'date-time' } as const;
/** A name's translations as operators see them (the app gets the name in its language instead). */
const translations = (name: string) => ({
  type: 'object',
  additionalProperties: { type: 'string' },
  description: `${name} in other languages, by BCP 47 tag (today zh-CN); a language without one shows ${name}`,
  examples: [{ 'zh-CN': '水彩' }],
});

const object = (properties: Record<string, object>, required: string[] = Object.keys(properties)) => ({
  type: 'object',
  additionalProperties: false,
  required,
  properties,
});

/** A job as its owner sees it; an operator's view (AdminJob) is the same fields and a few more beside them. */
const jobProperties = {
  id: uuid,
  jobType: { type: 'string' },
  status: { type: 'string', enum: jobStatuses.words },
  progress: { type: 'integer', minimum: 0, maximum: 100 },
  queue: { type: 'string', enum: jobQueues.words },
  queuePosition: { ...nullableInteger, description: 'jobs ahead in the queue, while queued' },
  attempts: object({ count: { type: 'integer' }, max: { type: 'integer' } }),
  modelId: nullableString,
  styleId: nullableString,
  petId: nullableString,
  inputAssetId: nullableString,
  outputAssetId: nullableString,
  outputUrl: {
    ...nullableString,
    description:
      'presigned GET URL of the output once succeeded, null before; it expires at outputUrlExpiresAt — use it at once, never store it (read the job again for a fresh one)',
  },
  outputUrlExpiresAt: { ...nullableDateTime, description: 'when outputUrl stops working' },
  outputSha256: {
    ...nullableString,
    description:
      'SHA-256 of the output image, lower-case hex, once succeeded (the bytes the job produced; a download can be checked against it); null before, without an output, and for jobs that succeeded before it was recorded',
  },
  prompt: { type: 'string' },
  negativePrompt: { type: 'string' },
  width: nullableInteger,
  height: nullableInteger,
  parameters: { type: 'object', additionalProperties: true },
  snapshot: nullable(
    object({
      providerCode: { type: 'string' },
      providerModel: { type: 'string' },
      modelVersion: { type: 'string' },
      styleCode: nullableString,
      effectiveParameters: {
        type: ['object', 'null'],
        additionalProperties: true,
        description:
          "what the vendor was asked: the model's defaultParameters with the job's own parameters over them (for the names a user may set); null for jobs created before it was recorded",
      },
      effectivePrompt: {
        ...nullableString,
        description: 'the prompt sent to the vendor: the job\'s prompt, then the style\'s promptPreset, joined by ", "',
      },
    }),
  ),
  error: nullable(object({ code: { type: 'string' }, message: { type: 'string' } })),
  startDeadlineAt: {
    ...nullableDateTime,
    description:
      "no worker may start the job after this (the create's startWithinSeconds); a job not started by then is cancelled with error START_DEADLINE_EXCEEDED. null: no deadline",
  },
  credentialMode: {
    type: 'string',
    enum: ['platform_key', 'user_key'],
    description: "whose vendor key runs the job: the platform's, or one of your own (credentialId)",
  },
  credentialId: { ...nullableString, description: 'your vendor key the job runs with (user_key); never the key' },
  retention: {
    ...object({
      inputsRedactAt: {
        ...nullableDateTime,
        description:
          "when the prompt, negative prompt and effective inputs are removed: the job's end plus its type's period (docs/retention.md); null while the job has not ended",
      },
      inputsRedactedAt: {
        ...nullableDateTime,
        description: 'when they were removed: prompts then read "", parameters keep their numbers and booleans only; null: not yet',
      },
      redactionVersion: { ...nullableInteger, description: 'what the removal took (1: docs/retention.md); null: not yet removed' },
      inputImageDeleteAt: {
        ...nullableDateTime,
        description:
          "when the input image is deleted at the earliest: the job's end plus its type's period; later if a post or a newer job still uses it then. null: no input image, the job has not ended, or it is deleted",
      },
      inputImageDeletedAt: { ...nullableDateTime, description: 'when the input image was deleted; null: not (yet)' },
    }),
    description: 'what happens to what you gave this job, and when (outputs stay while you keep them)',
  },
  retryOfJobId: nullableString,
  createdAt: dateTime,
  updatedAt: dateTime,
  startedAt: nullableDateTime,
  completedAt: nullableDateTime,
  timings: nullable(
    object({
      queuedMs: { type: 'integer' },
      runningMs: { type: 'integer' },
      totalMs: { type: 'integer' },
      attempts: {
        type: 'array',
        items: object({
          attempt: { type: 'integer' },
          startedAt: nullableDateTime,
          endedAt: nullableDateTime,
          durationMs: { type: 'integer' },
          outcome: { type: 'string' },
          errorCode: nullableString,
        }),
      },
    }),
  ),
  version: { type: 'integer', description: 'grows with every change; SSE event ids' },
};

export const USER_PURPOSES = assetPurposes.words.filter((word) => word !== 'ai_output');

export const sharedSchemas = [
  {
    $id: 'Error',
    ...object({
      error: object(
        {
          code: { type: 'integer', description: 'HTTP status × 100 + a sequence; a contract, never renumbered' },
          name: { type: 'string' },
          message: { type: 'string' },
          allowance: { type: 'string' },
          resetsAt: { type: 'string' },
          requestId: { type: 'string' },
        },
        ['code', 'name', 'message', 'requestId'],
      ),
    }),
  },
  {
    $id: 'Model',
    ...object({
      id: uuid,
      code: { type: 'string' },
      displayName: { type: 'string', description: 'in the language of the answer (Content-Language); English where it has none' },
      modelVersion: { type: 'string' },
      mediaKind: { type: 'string', enum: ['image', 'video'] },
      jobType: { type: 'string' },
      sortOrder: { type: 'integer' },
      defaultParameters: { type: 'object', additionalProperties: true },
    }),
  },
  {
    $id: 'Style',
    ...object({
      id: uuid,
      code: {
        type: 'string',
        description: "the style's stable key (e.g. healing, 3d, comic, watercolor), by which the app finds its built-in preview",
      },
      title: { type: 'string', description: 'in the language of the answer (Content-Language); English where it has none' },
      subtitle: { type: 'string', description: 'in the language of the answer, like title' },
      mediaKind: { type: 'string', enum: ['image', 'video'] },
      previewAssetId: nullableString,
      previewUrl: {
        ...nullableString,
        description:
          "the preview image, loadable by anyone without a token (a path on this API's origin that redirects to a short-lived URL); null when the style has none — the app then shows its own built-in image for the style's code (the seeded styles have none: healing, 3d, comic, watercolor)",
      },
      sortOrder: { type: 'integer' },
    }),
  },
  {
    $id: 'Asset',
    ...object({
      id: uuid,
      purpose: { type: 'string', enum: assetPurposes.words },
      contentType: { type: 'string' },
      sizeBytes: { type: 'integer' },
      sha256: nullableString,
      width: nullableInteger,
      height: nullableInteger,
      status: {
        type: 'string',
        enum: assetStatuses.words,
        description:
          "uploading until a completion verified the bytes, then ready; deleting while its owner's delete is under way (DELETE it again to finish a delete that was cut short)",
      },
      refusalReason: {
        ...nullableString,
        description:
          'why the last completion refused the bytes (UPLOAD_OBJECT_MISSING, UPLOAD_SIZE_MISMATCH, UPLOAD_NOT_AN_IMAGE, UPLOAD_CONTENT_TYPE_MISMATCH, UPLOAD_DIMENSIONS_OUT_OF_RANGE); the asset stays uploading and may be PUT and completed again. null once ready or when nothing was refused',
      },
      refusalMessage: { ...nullableString, description: 'the refusal in words, for people' },
      createdAt: dateTime,
      readyAt: nullableDateTime,
    }),
  },
  {
    $id: 'Job',
    ...object(jobProperties),
  },
  {
    $id: 'AdminJob',
    description: "A job as its owner sees it (Job's fields) with what only operators see",
    ...object({
      ...jobProperties,
      prompt: { ...nullableString, description: 'what the user wrote: shown to super_admin only, null to other roles' },
      negativePrompt: { ...nullableString, description: 'shown to super_admin only, null to other roles' },
      userId: { type: 'string' },
      internalErrorMessage: {
        ...nullableString,
        description: 'the internal error message: shown to super_admin only, null to other roles',
      },
      providerRequestId: { ...nullableString, description: "the vendor's id of the prediction the job runs (or ran) on" },
      leaseOwner: nullableString,
      leaseExpiresAt: nullableDateTime,
      abandonedProviderRequests: {
        type: 'integer',
        description: 'predictions earlier attempts gave up before providerRequestId (their ids are not kept)',
      },
    }),
  },
  {
    $id: 'JobEvent',
    description: 'One transition of a job',
    ...object({
      id: { type: 'integer', description: '0 for a transition retention archived' },
      from: { ...nullableString, enum: [...jobStatuses.words, null], description: 'null for the creation' },
      to: { type: 'string', enum: jobStatuses.words },
      attempt: { type: 'integer' },
      actor: { type: 'string', description: 'user:<id>, worker:<id>, reaper, operator:<id>, or archived' },
      errorCode: nullableString,
      errorClass: { ...nullableString, enum: [...errorClasses.words, null] },
      detail: {
        ...nullableString,
        description: "internal detail (a failed attempt's internal error message): super_admin only, null to other roles",
      },
      at: dateTime,
    }),
  },
  {
    $id: 'JobAttempt',
    description: 'One attempt of a job: queued, claimed, ended',
    ...object({
      attempt: { type: 'integer' },
      queuedAt: { ...dateTime, description: 'when the job became due for this attempt (created, or put back by a retry)' },
      startedAt: dateTime,
      endedAt: { ...nullableDateTime, description: 'null while it runs' },
      queuedWaitMs: { type: 'integer', description: "startedAt − queuedAt, a retry's backoff included" },
      runMs: { type: 'integer', description: 'endedAt − startedAt, or so far while it runs' },
      outcome: { type: 'string', enum: jobStatuses.words, description: 'running while in progress, queued when it was retried' },
      claimedBy: { type: 'string' },
      endedBy: nullableString,
      errorCode: nullableString,
      errorClass: { ...nullableString, enum: [...errorClasses.words, null] },
      errorDetail: { ...nullableString, description: 'the internal error message of its end: super_admin only, null to other roles' },
    }),
  },
  {
    $id: 'OutboxReplay',
    description: 'One operator replay call and what it found',
    ...object({
      id: { type: 'string' },
      outboxId: { type: 'string' },
      operatorId: { type: 'string', description: "the admin's token subject" },
      result: { type: 'string', enum: outboxReplayResults.words },
      replayedAt: dateTime,
    }),
  },
  {
    $id: 'CatalogModel',
    ...object({
      id: uuid,
      code: { type: 'string' },
      displayName: { type: 'string' },
      modelVersion: { type: 'string' },
      mediaKind: { type: 'string', enum: ['image', 'video'] },
      jobType: { type: 'string' },
      sortOrder: { type: 'integer' },
      defaultParameters: { type: 'object', additionalProperties: true },
      providerCode: { type: 'string' },
      providerModel: { type: 'string' },
      enabled: { type: 'boolean' },
      displayNameI18n: translations('displayName'),
      credentialModes: { type: 'array', items: { type: 'string', enum: ['platform_key', 'user_key'] } },
      createdAt: dateTime,
      updatedAt: dateTime,
    }),
  },
  {
    $id: 'CatalogStyle',
    ...object({
      id: uuid,
      code: { type: 'string' },
      title: { type: 'string' },
      subtitle: { type: 'string' },
      mediaKind: { type: 'string', enum: ['image', 'video'] },
      previewAssetId: nullableString,
      previewUrl: {
        ...nullableString,
        description:
          "the preview image, loadable by anyone without a token (a path on this API's origin that redirects to a short-lived URL); null without a preview",
      },
      sortOrder: { type: 'integer' },
      promptPreset: { type: 'string' },
      enabled: { type: 'boolean' },
      titleI18n: translations('title'),
      subtitleI18n: translations('subtitle'),
      createdAt: dateTime,
      updatedAt: dateTime,
    }),
  },
  {
    $id: 'Post',
    ...object({
      id: uuid,
      authorHandle: { type: 'string', description: "the author's public pseudonymous handle (never the sign-in identity)" },
      isMine: { type: 'boolean', description: 'whether the caller wrote the post' },
      petId: nullableString,
      category: { type: 'string', enum: postCategories.words },
      title: { type: 'string' },
      content: { type: 'string' },
      status: { type: 'string', enum: postStatuses.words },
      generationJobId: nullableString,
      media: { type: 'array', items: object({ assetId: uuid, ordinal: { type: 'integer' } }) },
      version: { type: 'integer' },
      createdAt: dateTime,
      updatedAt: dateTime,
      publishedAt: nullableDateTime,
    }),
  },
  {
    $id: 'OutboxEvent',
    ...object({
      id: { type: 'string' },
      aggregateId: uuid,
      eventType: { type: 'string' },
      subject: { type: 'string' },
      dedupeKey: { type: 'string' },
      status: { type: 'string', enum: outboxStatuses.words },
      attemptCount: { type: 'integer' },
      lastError: nullableString,
      createdAt: dateTime,
      availableAt: dateTime,
      publishedAt: nullableDateTime,
    }),
  },
] as const;

const ref = (id: string) => ({ $ref: `${id}#` });
const errorResponses = {
  400: ref('Error'),
  401: ref('Error'),
  403: ref('Error'),
  404: ref('Error'),
  409: ref('Error'),
  422: ref('Error'),
  429: ref('Error'),
  500: ref('Error'),
  503: ref('Error'),
};

export const page = (item: string) => object({ items: { type: 'array', items: ref(item) }, nextCursor: nullableString });
export const responses = (ok: Record<number, object>) => ({ ...errorResponses, ...ok });
export const idParam = (name: string) => object({ [name]: uuid });
export const idempotencyHeaders = {
  type: 'object',
  required: ['idempotency-key'],
  properties: {
    'idempotency-key': {
      type: 'string',
      minLength: 1,
      maxLength: MAX_IDEMPOTENCY_KEY_LENGTH,
      description: `1–${MAX_IDEMPOTENCY_KEY_LENGTH} characters; the same key replays the same request`,
    },
  },
};
/** Versions are int64 at the services; JSON numbers are exact only up to 2^53 − 1. */
export const MAX_VERSION = Number.MAX_SAFE_INTEGER;
/** The largest outbox event id (a Postgres bigint). */
export const MAX_INT64 = 9223372036854775807n;
/** `Last-Event-ID` of a job event stream: the version of the last event seen. */
export const lastEventIdHeaders = {
  type: 'object',
  properties: { 'last-event-id': { type: 'string', pattern: '^[0-9]{1,15}$', description: 'the id of the last event received' } },
};
export const pageQuery = (extra: Record<string, object> = {}) => ({
  type: 'object',
  additionalProperties: false,
  properties: {
    // Cursors are opaque base64url tokens (or a decimal id); what they hold is checked where they are read.
    cursor: { type: 'string', minLength: 1, maxLength: 1000, pattern: '^[A-Za-z0-9_-]+$', description: 'nextCursor of the previous page' },
    limit: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE },
    ...extra,
  },
});
export { ref, object, uuid, nullableString };

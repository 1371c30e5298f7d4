import { MAX_PROMPT_LENGTH } from '@atelier/validation';
import { ApiError, type ApiErrorName } from './error-codes.js';
import { OPERATION_ERRORS } from './operation-errors.js';

/**
 * What every operation of the OpenAPI document shares, applied once to the document @fastify/swagger
 * builds (its transformObject hook) rather than repeated in 32 route schemas: the servers, one
 * response per error status whose body names that status's codes as enums (a generated
 * Swift/Kotlin client gets a typed error) — or, for an operation that declares its errors
 * (operation-errors.ts), only the statuses and codes it answers — named examples per code,
 * `Retry-After` on every 429 and 503, and a request body marked optional where the route takes
 * none. Routes keep declaring `responses({...})`; this only rewrites what is documented.
 */

/** A message of each error as a client sees it: the examples of the document. */
const EXAMPLE_MESSAGES: Readonly<Record<ApiErrorName, string>> = {
  BAD_REQUEST: `body/prompt must NOT have more than ${MAX_PROMPT_LENGTH} characters`,
  UNAUTHENTICATED: 'a bearer token is required',
  TOKEN_EXPIRED: 'the token has expired; sign in again',
  TOKEN_WITHOUT_EXPIRY: 'the token has no expiry (exp); tokens must expire',
  FORBIDDEN: 'this route needs the admin role',
  ACCOUNT_DELETED: 'this account is being deleted or was deleted; nothing can be created in it any more',
  NOT_FOUND: 'no route GET /api/v1/nothing',
  PET_NOT_FOUND: 'pet_id: no pet of yours, or shared with you, has this id',
  MEDIA_NOT_FOUND: 'asset 019a3c1e-7f00-7000-8000-00000000d001 not found',
  POST_NOT_FOUND: 'post 019a3c1e-7f00-7000-8000-00000000e001 not found',
  JOB_NOT_FOUND: 'job 019a3c1e-7f00-7000-8000-00000000a001 not found',
  OUTBOX_EVENT_NOT_FOUND: 'outbox event 42 not found',
  WEBHOOK_ENDPOINT_NOT_FOUND: 'webhook endpoint not found',
  WEBHOOK_DELIVERY_NOT_FOUND: 'webhook delivery not found',
  CONFLICT: 'the request conflicts with the current state',
  VERSION_CONFLICT: 'the post changed since version 3; read it again and retry with the new version',
  IDEMPOTENCY_PAYLOAD_MISMATCH: 'Idempotency-Key was already used with a different request',
  ASSET_IN_USE: 'a published post shows this image; delete the post first, then delete the image',
  WEBHOOK_ENDPOINT_LIMIT: 'a user may register at most 10 webhook endpoints; delete one first',
  PROVIDER_CREDENTIAL_NOT_FOUND: 'provider credential not found',
  PROVIDER_CREDENTIAL_LIMIT: 'a user may register at most 5 vendor keys; delete one first',
  CREDENTIAL_MODE_NOT_ALLOWED: 'this model does not run with vendor keys of users',
  CREDENTIAL_PROVIDER_MISMATCH: 'this key is for provider sim, the model runs on acme',
  CREDENTIAL_REQUIRED: 'this model runs only with a vendor key of your own: give credentialId',
  CREDENTIALS_UNAVAILABLE: 'this deployment does not keep vendor keys of users',
  UNPROCESSABLE: 'the uploaded bytes are not a PNG, JPEG or WebP image',
  MEDIA_NOT_READY: 'the input asset is not ready; complete its upload first',
  GENERATION_RULE_VIOLATION: 'the model is disabled; pick another one from the catalog',
  WEBHOOK_URL_NOT_ALLOWED:
    'url: hooks.example.com resolves to 10.0.0.7, a private address; webhooks go to public addresses only (an operator may allowlist the host in WEBHOOK_ALLOWED_HOSTS)',
  WEBHOOK_URL_UNRESOLVABLE: 'url: hooks.example.invalid does not resolve (getaddrinfo ENOTFOUND hooks.example.invalid)',
  GENERATION_QUOTA_EXCEEDED: 'daily limit of 20 generations reached; it resets at 00:00 UTC',
  PROVIDER_BUDGET_EXHAUSTED: "today's spending limit of this model's provider is reached; new generations open at the next UTC day",
  TOO_MANY_STREAMS: 'at most 5 job event streams at a time; close one or try again in 10 s',
  GENERATION_MONTHLY_QUOTA_EXCEEDED: 'monthly limit of 300 generations reached; it resets on the 1st of next month at 00:00 UTC',
  UPLOAD_QUOTA_EXCEEDED: 'daily limit of 50 uploads reached; it resets at 00:00 UTC',
  STORAGE_QUOTA_EXCEEDED:
    'this upload of 5242880 bytes would take your stored bytes past the limit of 1073741824 (1070000000 in use); delete images to make room',
  POST_QUOTA_EXCEEDED: 'daily limit of 200 posts reached; it resets at 00:00 UTC',
  RATE_LIMITED: 'too many requests; slow down',
  INTERNAL: 'internal error',
  UNAVAILABLE: 'a service is unavailable right now; try again in 2 s',
};

/** What the examples of errors that carry details show beside the message (http-error.ts, ErrorDetails). */
const EXAMPLE_DETAILS: Readonly<Partial<Record<ApiErrorName, Record<string, string>>>> = {
  GENERATION_QUOTA_EXCEEDED: { allowance: 'daily', resetsAt: '2026-12-02T00:00:00.000Z' },
  GENERATION_MONTHLY_QUOTA_EXCEEDED: { allowance: 'monthly', resetsAt: '2027-01-01T00:00:00.000Z' },
};

/** The fields of a status's error bodies beyond code, name, message and requestId: present on some of its codes only. */
const STATUS_DETAILS: Readonly<Record<number, Record<string, object>>> = {
  429: {
    allowance: {
      type: 'string',
      enum: ['daily', 'monthly', 'in_flight'],
      description:
        'generation quota refusals (42900, 42902): the allowance that ran out — daily (42900), monthly (42902), or in_flight (42900: too many generations queued or running at once)',
    },
    resetsAt: {
      type: 'string',
      format: 'date-time',
      description:
        'with allowance daily or monthly: when that allowance starts again from 0 (00:00 UTC of the next day, or of the 1st of the next month); absent for in_flight, which frees when one of your generations ends (Retry-After says when to look again)',
    },
  },
};

const STATUS_TITLES: Readonly<Record<number, string>> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  409: 'Conflict',
  422: 'UnprocessableContent',
  429: 'TooManyRequests',
  500: 'InternalServerError',
  503: 'ServiceUnavailable',
};

const STATUS_DESCRIPTIONS: Readonly<Record<number, string>> = {
  400: 'The request is malformed or out of bounds; the message names the field. Nothing changed.',
  401: 'No valid bearer token.',
  403: 'The token is valid but lacks the role or ownership this needs.',
  404: 'No such resource for this caller (another user’s resources are not found either).',
  409: 'The request conflicts with the current state (a version, a reused Idempotency-Key, an image in use).',
  422: 'Well-formed but against a rule (asset not ready, model disabled, a finished job cancelled, upload refused).',
  429: 'A limit is reached; Retry-After says when the call may succeed.',
  500: 'An unexpected failure; it is logged with the requestId.',
  503: 'A dependency is down or slow; retry after Retry-After seconds (the same Idempotency-Key is safe).',
};

const SUCCESS_DESCRIPTIONS: Readonly<Record<string, string>> = {
  '200': 'OK',
  '201': 'Created',
  '202': 'Accepted',
  '204': 'No Content',
};

const RETRY_AFTER_STATUSES = new Set([429, 503]);

const EXAMPLE_REQUEST_ID = '019a3c1e-7f00-7000-8000-0000000000ff';

export function errorNamesOfStatus(status: number): ApiErrorName[] {
  return (Object.keys(ApiError) as ApiErrorName[]).filter((name) => ApiError[name].status === status);
}

/** The error body of a status, its codes limited to `names`. */
function errorBodySchema(status: number, names: readonly ApiErrorName[]): object {
  return {
    type: 'object',
    additionalProperties: false,
    required: ['error'],
    properties: {
      error: {
        type: 'object',
        additionalProperties: false,
        required: ['code', 'name', 'message', 'requestId'],
        properties: {
          code: {
            type: 'integer',
            enum: names.map((name) => ApiError[name].code),
            description: 'HTTP status × 100 + a sequence; a contract, never renumbered',
          },
          name: { type: 'string', enum: [...names], description: 'the code’s name; switch on this or on code' },
          message: {
            type: 'string',
            description:
              'what went wrong and what to do, for a person, in the Content-Language negotiated from Accept-Language (en, zh-CN); not for parsing',
          },
          ...STATUS_DETAILS[status],
          requestId: { type: 'string', description: 'quote it when reporting a problem (also the x-request-id header)' },
        },
      },
    },
  };
}

/** The answer of an error status whose body is `schema` (a $ref or the schema), with an example per code of `names`. */
function errorResponse(status: number, names: readonly ApiErrorName[], schema: object): object {
  return {
    description: STATUS_DESCRIPTIONS[status],
    ...(RETRY_AFTER_STATUSES.has(status) ? { headers: { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } } } : {}),
    content: {
      'application/json': {
        schema,
        examples: Object.fromEntries(
          names.map((name) => [
            name,
            {
              summary: `${ApiError[name].code} ${name}`,
              value: {
                error: {
                  code: ApiError[name].code,
                  name,
                  message: EXAMPLE_MESSAGES[name],
                  ...EXAMPLE_DETAILS[name],
                  requestId: EXAMPLE_REQUEST_ID,
                },
              },
            },
          ]),
        ),
      },
    },
  };
}

function errorComponents(): { schemas: Record<string, object>; responses: Record<string, object>; headers: Record<string, object> } {
  const schemas: Record<string, object> = {};
  const responses: Record<string, object> = {};
  for (const [statusText, title] of Object.entries(STATUS_TITLES)) {
    const status = Number(statusText);
    const names = errorNamesOfStatus(status);
    schemas[`${title}Error`] = errorBodySchema(status, names);
    responses[title] = errorResponse(status, names, { $ref: `#/components/schemas/${title}Error` });
  }
  const headers = {
    RetryAfter: {
      description: 'Seconds after which the same call may succeed',
      schema: { type: 'integer', minimum: 1, examples: [2] },
    },
  };
  return { schemas, responses, headers };
}

/**
 * The error answers of an operation that declares its errors (OPERATION_ERRORS): one per status
 * it answers, listing only its codes; the statuses it never answers are left out.
 */
function declaredErrorResponses(names: readonly ApiErrorName[]): Record<string, object> {
  const statuses = [...new Set(names.map((name) => ApiError[name].status))].sort((a, b) => a - b);
  return Object.fromEntries(
    statuses.map((status) => {
      const own = names.filter((name) => ApiError[name].status === status);
      return [String(status), errorResponse(status, own, errorBodySchema(status, own))];
    }),
  );
}

type Content = Record<string, { example?: unknown; examples?: unknown; schema?: { type?: string | string[] } }>;
type Operation = {
  operationId?: string;
  requestBody?: { required?: boolean; content?: Content };
  responses?: Record<string, { description?: string; content?: Content } & Record<string, unknown>>;
};
/** Example request and answers (by status) of an operation, keyed by its operationId. */
export type OperationExamples = Readonly<Record<string, { request?: unknown; responses: Readonly<Record<string, unknown>> }>>;

/** The body schema admits null: the route's handler is called without a body (server.ts parses an empty body as none). */
function acceptsNoBody(content: Content | undefined): boolean {
  const type = content && Object.values(content)[0]?.schema?.type;
  return Array.isArray(type) && type.includes('null');
}

/** Sets `example` of the first media type of `content` unless the route gave one. */
function exampleInto(content: Content | undefined, example: unknown): void {
  const first = content && Object.values(content)[0];
  if (first && first.example === undefined && first.examples === undefined && example !== undefined) first.example = example;
}
type Document = {
  servers?: object[];
  components?: { schemas?: Record<string, object>; responses?: Record<string, object>; headers?: Record<string, object> };
  paths?: Record<string, Record<string, Operation>>;
};

/** The document with the conventions above applied (it is changed in place and returned). */
export function applyOpenApiConventions<T extends object>(document: T, examples: OperationExamples = {}): T {
  const doc = document as Document;
  // Relative: the gateway serving /openapi.json is the server (npm start: http://localhost:8080).
  doc.servers = [{ url: '/', description: 'the gateway that serves this document' }];
  const errors = errorComponents();
  doc.components ??= {};
  const schemas = { ...doc.components.schemas };
  // The generic Error shape stays registered for the routes' serialisers; the document names each status's own.
  delete schemas['Error'];
  doc.components.schemas = { ...schemas, ...errors.schemas };
  doc.components.responses = { ...doc.components.responses, ...errors.responses };
  doc.components.headers = { ...doc.components.headers, ...errors.headers };
  for (const operations of Object.values(doc.paths ?? {})) {
    for (const operation of Object.values(operations)) {
      const own = operation.operationId === undefined ? undefined : examples[operation.operationId];
      exampleInto(operation.requestBody?.content, own?.request);
      // @fastify/swagger marks every body required; a route whose body schema admits null takes none at all.
      if (operation.requestBody && acceptsNoBody(operation.requestBody.content)) operation.requestBody.required = false;
      const declared = operation.operationId === undefined ? undefined : OPERATION_ERRORS[operation.operationId];
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        exampleInto(response.content, own?.responses[status]);
        const title = STATUS_TITLES[Number(status)];
        if (title && declared) delete operation.responses![status];
        else if (title) operation.responses![status] = { $ref: `#/components/responses/${title}` };
        else if (response.description === 'Default Response' && SUCCESS_DESCRIPTIONS[status])
          response.description = SUCCESS_DESCRIPTIONS[status];
      }
      if (declared) Object.assign((operation.responses ??= {}), declaredErrorResponses(declared));
    }
  }
  return document;
}

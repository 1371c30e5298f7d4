import { ErrorCode } from '@atelier/errors';

/**
 * The business error codes of the mobile API: HTTP status × 100 + a sequence. They are a
 * contract with the app: never renumber one, only add.
 */
export const ApiError = {
  BAD_REQUEST: { status: 400, code: 40000 },
  UNAUTHENTICATED: { status: 401, code: 40101 },
  TOKEN_EXPIRED: { status: 401, code: 40102 },
  TOKEN_WITHOUT_EXPIRY: { status: 401, code: 40103 },
  FORBIDDEN: { status: 403, code: 40301 },
  ACCOUNT_DELETED: { status: 403, code: 40302 },
  NOT_FOUND: { status: 404, code: 40400 },
  PET_NOT_FOUND: { status: 404, code: 40401 },
  MEDIA_NOT_FOUND: { status: 404, code: 40405 },
  POST_NOT_FOUND: { status: 404, code: 40406 },
  JOB_NOT_FOUND: { status: 404, code: 40407 },
  OUTBOX_EVENT_NOT_FOUND: { status: 404, code: 40408 },
  WEBHOOK_ENDPOINT_NOT_FOUND: { status: 404, code: 40420 },
  WEBHOOK_DELIVERY_NOT_FOUND: { status: 404, code: 40421 },
  PROVIDER_CREDENTIAL_NOT_FOUND: { status: 404, code: 40430 },
  CONFLICT: { status: 409, code: 40900 },
  VERSION_CONFLICT: { status: 409, code: 40902 },
  IDEMPOTENCY_PAYLOAD_MISMATCH: { status: 409, code: 40905 },
  ASSET_IN_USE: { status: 409, code: 40906 },
  WEBHOOK_ENDPOINT_LIMIT: { status: 409, code: 40920 },
  PROVIDER_CREDENTIAL_LIMIT: { status: 409, code: 40930 },
  UNPROCESSABLE: { status: 422, code: 42200 },
  MEDIA_NOT_READY: { status: 422, code: 42203 },
  GENERATION_RULE_VIOLATION: { status: 422, code: 42206 },
  WEBHOOK_URL_NOT_ALLOWED: { status: 422, code: 42220 },
  WEBHOOK_URL_UNRESOLVABLE: { status: 422, code: 42221 },
  CREDENTIAL_MODE_NOT_ALLOWED: { status: 422, code: 42230 },
  CREDENTIAL_PROVIDER_MISMATCH: { status: 422, code: 42231 },
  CREDENTIAL_REQUIRED: { status: 422, code: 42232 },
  CREDENTIALS_UNAVAILABLE: { status: 422, code: 42233 },
  GENERATION_QUOTA_EXCEEDED: { status: 429, code: 42900 },
  TOO_MANY_STREAMS: { status: 429, code: 42901 },
  GENERATION_MONTHLY_QUOTA_EXCEEDED: { status: 429, code: 42902 },
  UPLOAD_QUOTA_EXCEEDED: { status: 429, code: 42910 },
  STORAGE_QUOTA_EXCEEDED: { status: 429, code: 42911 },
  POST_QUOTA_EXCEEDED: { status: 429, code: 42912 },
  RATE_LIMITED: { status: 429, code: 42920 },
  INTERNAL: { status: 500, code: 50000 },
  UNAVAILABLE: { status: 503, code: 50300 },
  PROVIDER_BUDGET_EXHAUSTED: { status: 503, code: 50301 },
} as const;
export type ApiErrorName = keyof typeof ApiError;

/**
 * Codes once answered and no longer: never given to another meaning. 40903: a cancel of a finished
 * job answered 409 until the app's contract (the evaluation's API table) was followed to the
 * letter; it answers 422 42206 GENERATION_RULE_VIOLATION since.
 */
export const RETIRED_CODES: Readonly<Record<number, string>> = { 40903: 'JOB_ALREADY_FINISHED' };

/** Reasons (atelier-error-reason) that have a code of their own. */
const BY_REASON: Readonly<Record<string, ApiErrorName>> = {
  // A pet the caller may not see: someone else's and an unknown one alike (the app's pet service decides).
  PET_NOT_FOUND: 'PET_NOT_FOUND',
  ASSET_NOT_FOUND: 'MEDIA_NOT_FOUND',
  INPUT_ASSET_NOT_FOUND: 'MEDIA_NOT_FOUND',
  MEDIA_NOT_FOUND: 'MEDIA_NOT_FOUND',
  JOB_NOT_FOUND: 'JOB_NOT_FOUND',
  POST_NOT_FOUND: 'POST_NOT_FOUND',
  OUTBOX_EVENT_NOT_FOUND: 'OUTBOX_EVENT_NOT_FOUND',
  IDEMPOTENCY_PAYLOAD_MISMATCH: 'IDEMPOTENCY_PAYLOAD_MISMATCH',
  VERSION_CONFLICT: 'VERSION_CONFLICT',
  // A cancel of a job that already ended breaks a generation rule (the evaluation's table: 422 42206).
  JOB_ALREADY_FINISHED: 'GENERATION_RULE_VIOLATION',
  MEDIA_NOT_READY: 'MEDIA_NOT_READY',
  ASSET_IN_USE: 'ASSET_IN_USE',
  GENERATION_QUOTA_EXCEEDED: 'GENERATION_QUOTA_EXCEEDED',
  GENERATION_MONTHLY_QUOTA_EXCEEDED: 'GENERATION_MONTHLY_QUOTA_EXCEEDED',
  UPLOAD_QUOTA_EXCEEDED: 'UPLOAD_QUOTA_EXCEEDED',
  STORAGE_QUOTA_EXCEEDED: 'STORAGE_QUOTA_EXCEEDED',
  POST_QUOTA_EXCEEDED: 'POST_QUOTA_EXCEEDED',
  RATE_LIMITED: 'RATE_LIMITED',
  // The model's provider spent today's budget: new jobs open at the next UTC day (Retry-After) or when an operator raises it.
  PROVIDER_BUDGET_EXHAUSTED: 'PROVIDER_BUDGET_EXHAUSTED',
  ACCOUNT_DELETED: 'ACCOUNT_DELETED',
  WEBHOOK_ENDPOINT_NOT_FOUND: 'WEBHOOK_ENDPOINT_NOT_FOUND',
  WEBHOOK_DELIVERY_NOT_FOUND: 'WEBHOOK_DELIVERY_NOT_FOUND',
  // A count of endpoints, not a rate: no Retry-After helps, deleting one does.
  WEBHOOK_ENDPOINT_LIMIT: 'WEBHOOK_ENDPOINT_LIMIT',
  WEBHOOK_URL_NOT_ALLOWED: 'WEBHOOK_URL_NOT_ALLOWED',
  WEBHOOK_URL_UNRESOLVABLE: 'WEBHOOK_URL_UNRESOLVABLE',
  // A user's own vendor keys (docs/credentials.md). The limit is a count, as the endpoints': 409.
  PROVIDER_CREDENTIAL_NOT_FOUND: 'PROVIDER_CREDENTIAL_NOT_FOUND',
  CREDENTIAL_LIMIT_REACHED: 'PROVIDER_CREDENTIAL_LIMIT',
  CREDENTIAL_MODE_NOT_ALLOWED: 'CREDENTIAL_MODE_NOT_ALLOWED',
  CREDENTIAL_PROVIDER_MISMATCH: 'CREDENTIAL_PROVIDER_MISMATCH',
  CREDENTIAL_REQUIRED: 'CREDENTIAL_REQUIRED',
  CREDENTIALS_UNAVAILABLE: 'CREDENTIALS_UNAVAILABLE',
};

/** The service reasons the table above gives a code of their own (REASON_MESSAGES may key on them). */
export const REASONS_WITH_A_CODE: readonly string[] = Object.keys(BY_REASON);

/** Everything else, by canonical code. FAILED_PRECONDITION is a broken generation rule. */
const BY_CODE: Readonly<Record<ErrorCode, ApiErrorName>> = {
  [ErrorCode.INVALID_ARGUMENT]: 'BAD_REQUEST',
  [ErrorCode.NOT_FOUND]: 'NOT_FOUND',
  [ErrorCode.ALREADY_EXISTS]: 'CONFLICT',
  [ErrorCode.FAILED_PRECONDITION]: 'GENERATION_RULE_VIOLATION',
  [ErrorCode.RESOURCE_EXHAUSTED]: 'GENERATION_QUOTA_EXCEEDED',
  [ErrorCode.ABORTED]: 'CONFLICT',
  [ErrorCode.PERMISSION_DENIED]: 'FORBIDDEN',
  [ErrorCode.UNAUTHENTICATED]: 'UNAUTHENTICATED',
  [ErrorCode.UNAVAILABLE]: 'UNAVAILABLE',
  [ErrorCode.DEADLINE_EXCEEDED]: 'UNAVAILABLE',
  [ErrorCode.CANCELLED]: 'UNAVAILABLE',
  [ErrorCode.INTERNAL]: 'INTERNAL',
};

/**
 * The one table from a service's answer (canonical code + reason) to the API's. Upload
 * verification refusals (UPLOAD_*) and other rule refusals stay 422.
 */
export function apiErrorFor(code: ErrorCode, reason: string | undefined): ApiErrorName {
  if (reason && BY_REASON[reason]) return BY_REASON[reason];
  if (code === ErrorCode.FAILED_PRECONDITION && reason?.startsWith('UPLOAD_')) return 'UNPROCESSABLE';
  return BY_CODE[code];
}

import type { ApiErrorName } from './error-codes.js';

/** What every authenticated route may answer, whatever it does. */
const ANY_AUTHENTICATED_ROUTE: readonly ApiErrorName[] = [
  'UNAUTHENTICATED',
  'TOKEN_EXPIRED',
  'TOKEN_WITHOUT_EXPIRY',
  'RATE_LIMITED',
  'INTERNAL',
  'UNAVAILABLE',
];

/**
 * The errors an operation answers, for the operations whose clients are generated from the
 * document and switch on the code: the five creation operations of the mobile app's contract (the
 * evaluation's API table, docs/api.md "The creation API, to the letter"). The document lists exactly
 * these under each of those operations (http/openapi-conventions.ts) instead of every code of
 * each status; the fuzz suite fails on an answer of theirs outside it. The other operations
 * document every code of every error status.
 */
export const OPERATION_ERRORS: Readonly<Record<string, readonly ApiErrorName[]>> = {
  getCreationCatalog: ['BAD_REQUEST', ...ANY_AUTHENTICATED_ROUTE],
  createGenerationJob: [
    'BAD_REQUEST',
    ...ANY_AUTHENTICATED_ROUTE,
    // system.* job types are the operators' probes; a deleted account creates nothing.
    'FORBIDDEN',
    'ACCOUNT_DELETED',
    'MEDIA_NOT_FOUND',
    'PET_NOT_FOUND',
    'IDEMPOTENCY_PAYLOAD_MISMATCH',
    'MEDIA_NOT_READY',
    'GENERATION_RULE_VIOLATION',
    'GENERATION_QUOTA_EXCEEDED',
    'GENERATION_MONTHLY_QUOTA_EXCEEDED',
    // A job on a vendor key of the user's own (credentialId, docs/credentials.md).
    'PROVIDER_CREDENTIAL_NOT_FOUND',
    'CREDENTIAL_MODE_NOT_ALLOWED',
    'CREDENTIAL_PROVIDER_MISMATCH',
    'CREDENTIAL_REQUIRED',
    // The model's provider spent today's budget (docs/budgets-and-limits.md): Retry-After to the next UTC day.
    'PROVIDER_BUDGET_EXHAUSTED',
  ],
  listGenerationJobs: ['BAD_REQUEST', ...ANY_AUTHENTICATED_ROUTE],
  // 400: a jobId that is not a UUID is refused before any lookup.
  getGenerationJob: ['BAD_REQUEST', ...ANY_AUTHENTICATED_ROUTE, 'JOB_NOT_FOUND'],
  cancelGenerationJob: ['BAD_REQUEST', ...ANY_AUTHENTICATED_ROUTE, 'JOB_NOT_FOUND', 'GENERATION_RULE_VIOLATION'],
};

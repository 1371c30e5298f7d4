import { enumWords, jobsUsageV1 } from '@atelier/contracts';
import { InvalidArgumentError } from '@atelier/errors';
import { MAX_MODEL_VERSION_LENGTH, MAX_PROVIDER_MODEL_LENGTH, requireIntInRange, requireText, requireUuid } from '@atelier/validation';

/**
 * One ledger row as a worker reports it (RecordProviderCalls), checked field by field against the
 * bounds of jobs.provider_calls (migration 0014): a bad field is INVALID_ARGUMENT naming it as
 * calls[<i>].<field>, before anything is written.
 */
export interface ProviderCallRecord {
  jobId: string;
  attempt: number;
  callKind: CallKindWord;
  requestKey: string;
  vendorId: string;
  providerCode: string;
  providerModel: string;
  modelVersion: string;
  credentialMode: CredentialMode;
  credentialId: string;
  outcome: OutcomeWord;
  errorCode: string | null;
  httpStatus: number | null;
  latencyMs: number;
  predictTimeMs: number | null;
  images: number | null;
  calledAt: Date;
}

export const CALL_KINDS = enumWords(jobsUsageV1.ProviderCallKind);
export const CALL_OUTCOMES = enumWords(jobsUsageV1.ProviderCallOutcome);
type CallKindWord = (typeof CALL_KINDS.words)[number];
type OutcomeWord = (typeof CALL_OUTCOMES.words)[number];

/** Whose vendor account paid (provider_calls_credential_mode_known). */
export const CREDENTIAL_MODES = ['platform_key', 'user_key'] as const;
export type CredentialMode = (typeof CREDENTIAL_MODES)[number];

/** At most this many calls per RecordProviderCalls. */
export const MAX_CALLS_PER_RECORD = 500;
/** The bounds of the columns (0014's CHECKs and sizes) and of what a vendor can plausibly report. */
export const CALL_LIMITS = {
  maxAttempt: 20,
  maxRequestKey: 200,
  maxVendorId: 128,
  maxCredentialId: 128,
  maxErrorCode: 64,
  maxLatencyMs: 86_400_000,
  maxPredictTimeMs: 86_400_000,
  maxImages: 10_000,
  /** A call reported as made later than this after now is refused (clocks drift a little). */
  futureToleranceMs: 5 * 60_000,
} as const;

const PROVIDER_CODE = /^[a-z][a-z0-9_-]{0,63}$/;

function optionalInt(value: number | undefined, field: string, min: number, max: number): number | null {
  return value === undefined ? null : requireIntInRange(value, field, min, max);
}

export function validateProviderCall(call: jobsUsageV1.ProviderCallInput, index: number, now: Date): ProviderCallRecord {
  const field = (name: string) => `calls[${index}].${name}`;
  const callKind = CALL_KINDS.wordOf(call.callKind);
  if (!callKind) throw new InvalidArgumentError(field('call_kind'), `must be one of ${CALL_KINDS.words.join(', ')}`);
  const outcome = CALL_OUTCOMES.wordOf(call.outcome);
  if (!outcome) throw new InvalidArgumentError(field('outcome'), `must be one of ${CALL_OUTCOMES.words.join(', ')}`);
  if (!(CREDENTIAL_MODES as readonly string[]).includes(call.credentialMode)) {
    throw new InvalidArgumentError(field('credential_mode'), `must be one of ${CREDENTIAL_MODES.join(', ')}`);
  }
  if (!PROVIDER_CODE.test(call.providerCode)) throw new InvalidArgumentError(field('provider_code'), 'must be a lower-case identifier');
  const calledAt = call.calledAt;
  if (!calledAt || Number.isNaN(calledAt.getTime())) throw new InvalidArgumentError(field('called_at'), 'is required');
  if (calledAt.getTime() > now.getTime() + CALL_LIMITS.futureToleranceMs) {
    throw new InvalidArgumentError(field('called_at'), 'must not be in the future');
  }
  return {
    jobId: requireUuid(call.jobId, field('job_id')),
    attempt: requireIntInRange(call.attempt, field('attempt'), 0, CALL_LIMITS.maxAttempt),
    callKind,
    requestKey: requireText(call.requestKey, field('request_key'), CALL_LIMITS.maxRequestKey),
    vendorId: requireText(call.vendorId, field('vendor_id'), CALL_LIMITS.maxVendorId, { allowEmpty: true }),
    providerCode: call.providerCode,
    // Empty: jobs fills them from the job's snapshot (a provider-cancel task does not carry them).
    providerModel: requireText(call.providerModel, field('provider_model'), MAX_PROVIDER_MODEL_LENGTH, { allowEmpty: true }),
    modelVersion: requireText(call.modelVersion, field('model_version'), MAX_MODEL_VERSION_LENGTH, { allowEmpty: true }),
    credentialMode: call.credentialMode as CredentialMode,
    credentialId: requireText(call.credentialId, field('credential_id'), CALL_LIMITS.maxCredentialId),
    outcome,
    errorCode: call.errorCode === undefined ? null : requireText(call.errorCode, field('error_code'), CALL_LIMITS.maxErrorCode),
    httpStatus: optionalInt(call.httpStatus, field('http_status'), 100, 599),
    latencyMs: requireIntInRange(call.latencyMs, field('latency_ms'), 0, CALL_LIMITS.maxLatencyMs),
    predictTimeMs: optionalInt(call.predictTimeMs, field('predict_time_ms'), 0, CALL_LIMITS.maxPredictTimeMs),
    images: optionalInt(call.images, field('images'), 0, CALL_LIMITS.maxImages),
    calledAt,
  };
}

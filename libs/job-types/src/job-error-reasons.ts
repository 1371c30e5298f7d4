/**
 * The stable reasons behind a job's public error message (the `error` of a job view). A job's
 * error code is open-ended (a worker names each failure, e.g. PROVIDER_RATE_LIMITED), but its
 * public message is one per reason: the failure's family (SPEC §5: the code starts with it) or a
 * terminal reason of its own that the jobs service writes. Whatever renders that message (the
 * gateway, in the caller's language) renders it from this reason, so every reason listed here
 * needs a message in every supported language (the gateway's message-catalog test).
 */
export const JOB_ERROR_REASONS = [
  'PROVIDER',
  'VALIDATION',
  'CONTENT_SAFETY',
  'CREDENTIAL',
  'TIMEOUT',
  'CANCELLED',
  'INTERNAL',
  /** Cancelled by its start deadline (start-deadline.ts): never run, never charged. */
  'START_DEADLINE_EXCEEDED',
  /** The worker running its last attempt stopped renewing its lease. */
  'LEASE_EXPIRED',
  /** Queued again after a failed attempt: the message says it will be tried again. */
  'RETRY_SCHEDULED',
] as const;
export type JobErrorReason = (typeof JOB_ERROR_REASONS)[number];

/** Families by the prefix their codes carry (the jobs service refuses a code outside its family). */
const FAMILIES: readonly (readonly [string, JobErrorReason])[] = [
  ['PROVIDER_', 'PROVIDER'],
  ['VALIDATION_', 'VALIDATION'],
  ['CONTENT_SAFETY_', 'CONTENT_SAFETY'],
  ['CREDENTIAL_', 'CREDENTIAL'],
  ['TIMEOUT', 'TIMEOUT'],
  ['CANCELLED', 'CANCELLED'],
  ['INTERNAL_', 'INTERNAL'],
];

/**
 * The reason of a job's error: `queued` with an error is a scheduled retry; a terminal reason of
 * its own by its exact code; otherwise the code's family; an unknown code is INTERNAL.
 */
export function jobErrorReasonOf(code: string, status: string): JobErrorReason {
  if (status === 'queued') return 'RETRY_SCHEDULED';
  if (code === 'START_DEADLINE_EXCEEDED' || code === 'LEASE_EXPIRED') return code;
  for (const [prefix, reason] of FAMILIES) if (code.startsWith(prefix)) return reason;
  return 'INTERNAL';
}

import { jobsExecutionV1 } from '@atelier/contracts';

const { ProviderPauseReason } = jobsExecutionV1;

/**
 * The longest a dispatch held back by its provider's gate is handed back for, by reason: a
 * concurrency slot frees whenever any job of the provider ends, so a second and a half; a budget
 * reopens at the next UTC day but also the moment an operator raises it, so half a minute at most
 * (a raise is seen within it); a vendor throttle ends at its Retry-After.
 */
const MAX_DELAY_MS: Readonly<Record<jobsExecutionV1.ProviderPauseReason, number>> = {
  [ProviderPauseReason.CONCURRENCY]: 1_500,
  [ProviderPauseReason.BUDGET]: 30_000,
  [ProviderPauseReason.VENDOR_THROTTLED]: 30_000,
  [ProviderPauseReason.UNSPECIFIED]: 5_000,
  [ProviderPauseReason.UNRECOGNIZED]: 5_000,
};

/**
 * How long to hand a held-back dispatch back for: until its not_before, capped by its reason, and
 * spread by up to a fifth so that the jobs a gate held back together do not all come back at once.
 */
export function pausedDelayMs(claim: jobsExecutionV1.ClaimJobResponse, now = Date.now(), random = Math.random): number {
  const reason = claim.pauseReason ?? ProviderPauseReason.UNSPECIFIED;
  const until = (claim.notBefore?.getTime() ?? now) - now;
  const base = Math.min(MAX_DELAY_MS[reason] ?? 5_000, Math.max(250, until));
  return Math.round(base * (1 + random() * 0.2));
}

/** The reason's word, for metrics and logs. */
export function pauseReasonWord(reason: jobsExecutionV1.ProviderPauseReason | undefined): string {
  if (reason === ProviderPauseReason.BUDGET) return 'budget';
  if (reason === ProviderPauseReason.CONCURRENCY) return 'concurrency';
  if (reason === ProviderPauseReason.VENDOR_THROTTLED) return 'vendor_throttled';
  return 'unspecified';
}

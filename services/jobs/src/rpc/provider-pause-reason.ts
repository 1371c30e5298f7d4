import { jobsExecutionV1 } from '@atelier/contracts';
import type { PauseReason } from '../domain/provider-gates.js';

const { ProviderPauseReason } = jobsExecutionV1;

/** A gate's reason as the contract says it. */
export const PAUSE_REASONS: Readonly<Record<PauseReason, jobsExecutionV1.ProviderPauseReason>> = {
  budget: ProviderPauseReason.BUDGET,
  concurrency: ProviderPauseReason.CONCURRENCY,
  vendor_throttled: ProviderPauseReason.VENDOR_THROTTLED,
};

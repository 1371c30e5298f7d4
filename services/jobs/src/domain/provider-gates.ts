/**
 * "May this provider's job start now?" — the pure decision behind a gated claim
 * (docs/budgets-and-limits.md). The claim reads a provider's state under its advisory lock
 * (db/provider-gates-sql.ts) and asks this, request by request, in request order.
 */

export type PauseReason = 'budget' | 'concurrency' | 'vendor_throttled';

/** One daily budget of a provider: model '' spans every model. */
export interface BudgetState {
  model: string;
  limitMicros: number;
  spentMicros: number;
}

/** One concurrency cap of a provider: model '' spans every model. */
export interface CapState {
  model: string;
  maxConcurrent: number;
  running: number;
}

/** What the claim knows of a provider while it holds the provider's lock. */
export interface ProviderGateState {
  /** The vendor's Retry-After, while it lasts. */
  pausedUntil: Date | null;
  budgets: BudgetState[];
  caps: CapState[];
}

export interface GatedJob {
  providerModel: string;
  /**
   * Gates hold only jobs on our own key (credential mode platform_key): a user's key is the user's
   * vendor account, with its own bill, caps and throttle.
   */
  onPlatformKey: boolean;
}

export type GateDecision = { admit: true } | { admit: false; reason: PauseReason; notBefore: Date };

/** How soon a concurrency-paused job is worth trying again: a slot frees when any job ends. */
export const CONCURRENCY_RETRY_MS = 1_000;

/** The start of the next UTC day: when a daily budget's window opens again. */
export function nextUtcDay(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
}

/** Whether a budget spans a job of this model. */
export function budgetCovers(budget: { model: string }, providerModel: string): boolean {
  return budget.model === '' || budget.model === providerModel;
}

/**
 * Whether one more job may start, and if so counts it as running in `state` (so the next request
 * of the same batch sees it). The order of the checks is the order of the reasons' strength: a
 * throttle ends first, a budget is the operator's word, a cap frees when any job ends.
 */
export function decide(state: ProviderGateState, job: GatedJob, now: Date): GateDecision {
  if (!job.onPlatformKey) return { admit: true };
  if (state.pausedUntil && state.pausedUntil > now) return { admit: false, reason: 'vendor_throttled', notBefore: state.pausedUntil };
  if (state.budgets.some((b) => budgetCovers(b, job.providerModel) && b.spentMicros >= b.limitMicros)) {
    return { admit: false, reason: 'budget', notBefore: nextUtcDay(now) };
  }
  const caps = state.caps.filter((cap) => budgetCovers(cap, job.providerModel));
  if (caps.some((cap) => cap.running >= cap.maxConcurrent)) {
    return { admit: false, reason: 'concurrency', notBefore: new Date(now.getTime() + CONCURRENCY_RETRY_MS) };
  }
  for (const cap of caps) cap.running += 1;
  return { admit: true };
}

/** A bucket's tokens after `elapsedMs` at `rate` a second, never above `burst`. */
export function refill(tokens: number, elapsedMs: number, rate: number, burst: number): number {
  return Math.min(burst, tokens + (Math.max(0, elapsedMs) / 1000) * rate);
}

/** Permits of a bucket holding `available`: whole ones, at most `wanted`; and when the next one comes. */
export function takePermits(available: number, wanted: number, rate: number): { granted: number; left: number; retryAfterMs: number } {
  const granted = Math.max(0, Math.min(wanted, Math.floor(available)));
  const left = available - granted;
  // Short of what was wanted, the bucket holds less than one: the next whole one is (1 - left) / rate away.
  const retryAfterMs = granted >= wanted ? 0 : Math.max(10, Math.ceil(((1 - left) / rate) * 1000));
  return { granted, left, retryAfterMs };
}

import { describe, expect, it } from 'vitest';
import { jobsExecutionV1 } from '@atelier/contracts';
import { pausedDelayMs } from './provider-pause.js';

const { ClaimOutcome, ProviderPauseReason } = jobsExecutionV1;
const now = Date.parse('2026-12-03T21:00:00Z');
const paused = (pauseReason: jobsExecutionV1.ProviderPauseReason, inMs: number) => ({
  outcome: ClaimOutcome.PROVIDER_PAUSED,
  pauseReason,
  notBefore: new Date(now + inMs),
});

describe('pausedDelayMs', () => {
  it('hands a held-back dispatch back until not_before, capped by reason, spread by up to a fifth', () => {
    expect(pausedDelayMs(paused(ProviderPauseReason.CONCURRENCY, 1_000), now, () => 0)).toBe(1_000);
    expect(pausedDelayMs(paused(ProviderPauseReason.CONCURRENCY, 60_000), now, () => 0)).toBe(1_500);
    expect(pausedDelayMs(paused(ProviderPauseReason.BUDGET, 3 * 3_600_000), now, () => 0)).toBe(30_000);
    expect(pausedDelayMs(paused(ProviderPauseReason.BUDGET, 3 * 3_600_000), now, () => 0.99)).toBeLessThanOrEqual(36_000);
    expect(pausedDelayMs(paused(ProviderPauseReason.VENDOR_THROTTLED, 1_200), now, () => 0)).toBe(1_200);
    expect(pausedDelayMs(paused(ProviderPauseReason.VENDOR_THROTTLED, -50), now, () => 0)).toBe(250);
  });
});

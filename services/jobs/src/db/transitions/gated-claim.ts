import { inTransaction, type SqlPool } from '@atelier/db';
import { decide, type PauseReason } from '../../domain/provider-gates.js';
import { findGatedJobs, lockProviders, readProviderGateStates } from '../provider-gates-sql.js';
import { claim, claimHoldingGated, type ClaimRequest, type HeldForGate } from './claim-sql.js';
import type { TransitionResult } from './found-job-row.js';

/** A claim a provider's gate held back: the job stays queued, untouched. */
export interface PausedClaim {
  changed: false;
  paused: { provider: string; reason: PauseReason; notBefore: Date };
}

export type ClaimResult = TransitionResult | PausedClaim;

export function isPaused(result: ClaimResult): result is PausedClaim {
  return 'paused' in result;
}

/**
 * The claim behind the gates (docs/budgets-and-limits.md). Jobs whose provider has no budget, cap
 * or throttle are claimed as always, in one statement, which leaves the others alone. For those,
 * in one transaction: the providers' advisory locks, their state (today's spend, running jobs,
 * the vendor's pause), a decision per request in request order, and the claim of those admitted —
 * so two replicas claiming jobs of a capped provider at once can never both take its last slot. A
 * held-back request answers its reason and when to come back; its job is not touched (no attempt
 * counted).
 */
export async function gatedClaim(pool: SqlPool, requests: readonly ClaimRequest[], leaseTtlMs: number): Promise<ClaimResult[]> {
  const results: (ClaimResult | HeldForGate)[] = await claimHoldingGated(pool, requests, leaseTtlMs);
  const held = requests.filter((_request, i) => 'heldForGate' in results[i]!);
  if (held.length === 0) return results as ClaimResult[];
  const decided = await claimBehindGates(pool, held, leaseTtlMs);
  let next = 0;
  return results.map((result) => ('heldForGate' in result ? decided[next++]! : result));
}

async function claimBehindGates(pool: SqlPool, requests: readonly ClaimRequest[], leaseTtlMs: number): Promise<ClaimResult[]> {
  return inTransaction(pool, async (client) => {
    const gated = await findGatedJobs(
      client,
      requests.map((request) => request.jobId),
    );
    const byId = new Map(gated.map((row) => [row.id, row]));
    const providers = [...new Set(gated.map((row) => row.provider_code))];
    await lockProviders(client, providers);
    const states = await readProviderGateStates(client, providers);
    const now = new Date();
    const results: (ClaimResult | undefined)[] = requests.map((request) => {
      const job = byId.get(request.jobId);
      const state = job && states.get(job.provider_code);
      if (!job || !state) return undefined;
      const decision = decide(state, { providerModel: job.provider_model, onPlatformKey: job.on_platform_key }, now);
      return decision.admit
        ? undefined
        : { changed: false, paused: { provider: job.provider_code, reason: decision.reason, notBefore: decision.notBefore } };
    });
    const admitted = requests.filter((_request, i) => results[i] === undefined);
    const claimed = admitted.length === 0 ? [] : await claim(client, admitted, leaseTtlMs);
    let next = 0;
    return results.map((result) => result ?? claimed[next++]!);
  });
}

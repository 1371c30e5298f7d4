import type { SqlPool } from '@atelier/db';
import { MicroBatcher } from '@atelier/batching';
import type { OutboxSubjects } from '../job-row.js';
import type { ClaimRequest } from './claim-sql.js';
import { gatedClaim, type ClaimResult } from './gated-claim.js';
import { complete, type CompleteRequest } from './complete-sql.js';
import { createJobs, type CreateOutcome, type NewJob } from './create-sql.js';
import type { TransitionResult } from './found-job-row.js';

/**
 * The hot transitions, coalesced: concurrent creates (of types the quota does not count), claims
 * and completions — from single calls and from the entries of batch calls alike — each become one
 * statement per batch. Every call still gets its own answer, and a call whose caller's deadline
 * passed while it waited for its batch is dropped, not run (the signal is the gRPC call's).
 */
export interface TransitionBatches {
  create(job: NewJob, actor: string, signal?: AbortSignal): Promise<CreateOutcome>;
  /** Behind the providers' gates (gated-claim.ts): a claim may be held back. */
  claim(request: ClaimRequest, signal?: AbortSignal): Promise<ClaimResult>;
  complete(request: CompleteRequest, signal?: AbortSignal): Promise<TransitionResult>;
}

export function createTransitionBatches(
  pool: SqlPool,
  /** Asked per batch: the relay that claims the outbox rows may change between batches. */
  subjects: () => OutboxSubjects,
  leaseTtlMs: number,
  options = { maxBatch: 200, maxConcurrent: 4 },
): TransitionBatches {
  const creates = new MicroBatcher<{ job: NewJob; actor: string }, CreateOutcome>(
    (requests) =>
      createJobs(
        pool,
        requests.map((r) => r.job),
        requests.map((r) => r.actor),
        subjects(),
      ),
    options,
  );
  const claims = new MicroBatcher<ClaimRequest, ClaimResult>((requests) => gatedClaim(pool, requests, leaseTtlMs), options);
  const completions = new MicroBatcher<CompleteRequest, TransitionResult>((requests) => complete(pool, requests, subjects()), options);
  return {
    create: (job, actor, signal) => creates.submit({ job, actor }, signal),
    claim: (request, signal) => claims.submit(request, signal),
    complete: (request, signal) => completions.submit(request, signal),
  };
}

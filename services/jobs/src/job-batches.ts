import type { SqlPool } from '@atelier/db';
import { MicroBatcher } from '@atelier/batching';
import type { JobRow, OutboxSubjects } from './db/job-row.js';
import { claimJobs, completeJobs, insertJobs, type ClaimRequest, type CompleteRequest, type NewJob } from './db/job-transitions.js';

/**
 * The hot transitions, coalesced: concurrent creates (of standalone job types), claims and
 * completions each become one statement per batch. Every call still gets its own answer, and a
 * call whose caller's deadline passed while it waited for its batch is dropped, not run (the
 * signal is the gRPC call's).
 */
export interface JobBatches {
  /** The inserted row, or null when the (user, idempotency key) already existed. */
  insert(job: NewJob, actor: string, signal?: AbortSignal): Promise<JobRow | null>;
  /** The claimed row, or null when this worker did not get the job. */
  claim(request: ClaimRequest, signal?: AbortSignal): Promise<JobRow | null>;
  /** The succeeded row, or null when the worker no longer held the lease (or gave no required output). */
  complete(request: CompleteRequest, signal?: AbortSignal): Promise<JobRow | null>;
}

export function createJobBatches(
  pool: SqlPool,
  subjects: OutboxSubjects,
  leaseTtlMs: number,
  options = { maxBatch: 200, maxConcurrent: 4 },
): JobBatches {
  const inserts = new MicroBatcher<{ job: NewJob; actor: string }, JobRow | null>(async (requests) => {
    const rows = await insertJobs(
      pool,
      requests.map((r) => r.job),
      requests.map((r) => r.actor),
      subjects,
    );
    const byId = new Map(rows.map((row) => [row.id, row]));
    return requests.map((r) => byId.get(r.job.id) ?? null);
  }, options);
  const claims = new MicroBatcher<ClaimRequest, JobRow | null>(async (requests) => {
    const rows = await claimJobs(pool, requests, leaseTtlMs);
    return requests.map((r) => rows.find((row) => row.id === r.jobId && row.lease_owner === r.workerId) ?? null);
  }, options);
  const completions = new MicroBatcher<CompleteRequest, JobRow | null>(async (requests) => {
    const rows = (await completeJobs(pool, requests, subjects)) as (JobRow & { worker_id: string })[];
    return requests.map((r) => rows.find((row) => row.id === r.jobId && row.worker_id === r.workerId) ?? null);
  }, options);
  return {
    insert: (job, actor, signal) => inserts.submit({ job, actor }, signal),
    claim: (request, signal) => claims.submit(request, signal),
    complete: (request, signal) => completions.submit(request, signal),
  };
}

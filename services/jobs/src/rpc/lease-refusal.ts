import { jobsExecutionV1 } from '@atelier/contracts';
import { AbortedError, NotFoundError } from '@atelier/errors';
import type { FoundJob } from '../db/transitions/found-job-row.js';

/**
 * Why a worker's call under a lease was refused, from the job as the refused statement found it:
 * the job is gone (NOT_FOUND), it ended (ABORTED with JOB_CANCELLED, JOB_FAILED or
 * JOB_SUCCEEDED), or it is running or queued without this worker's lease (ABORTED, LEASE_LOST).
 * The worker stops; what it does with an output it stored depends on the reason (execution.proto).
 */
export function leaseRefusal(found: FoundJob | null, workerId: string): Error {
  if (!found) return new NotFoundError('job');
  if (found.status === 'running' && found.leaseOwner === workerId) {
    // The statement's snapshot still showed the lease, but a change committed as it ran took it.
    return new AbortedError('LEASE_LOST', 'the lease changed while the call ran; retry it');
  }
  if (found.status === 'running' || found.status === 'queued') {
    return new AbortedError('LEASE_LOST', "this worker no longer holds the job's lease (it expired or passed to another worker)");
  }
  return new AbortedError(`JOB_${found.status.toUpperCase()}`, `the job is ${found.status}`);
}

/** The job runs under this worker's lease, as found. */
export function holdsLease(found: FoundJob | null, workerId: string): found is FoundJob {
  return found?.status === 'running' && found.leaseOwner === workerId;
}

/**
 * Why a worker must stop a job it reports on (Heartbeat, ReportProgress) when the job is not
 * running under its lease: the user cancelled it, the lease passed on (the job is queued again or
 * runs elsewhere), or it ended otherwise (or never existed).
 */
export function stopReasonFor(status: string | null | undefined): jobsExecutionV1.StopReason {
  if (status === 'cancelled') return jobsExecutionV1.StopReason.CANCELLED;
  if (status === 'running' || status === 'queued') return jobsExecutionV1.StopReason.LEASE_LOST;
  return jobsExecutionV1.StopReason.JOB_NOT_RUNNING;
}

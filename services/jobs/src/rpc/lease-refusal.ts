import { jobsExecutionV1 } from '@atelier/contracts';
import { AbortedError, NotFoundError } from '@atelier/errors';
import { InvalidArgumentError } from '@atelier/errors';
import type { Queryable } from '@atelier/db';
import { findJob } from '../db/job-queries.js';

const WORKER_ID_PATTERN = /^[\x21-\x7e]{1,200}$/;

/** Worker ids are printable ASCII without spaces, 1–200 characters (e.g. `pod/pid/random`). */
export function requireWorkerId(value: string): string {
  if (!WORKER_ID_PATTERN.test(value)) throw new InvalidArgumentError('worker_id', 'must be 1–200 printable characters without spaces');
  return value;
}

/**
 * Why a worker's call under a lease was refused: the job is gone (NOT_FOUND), it ended (ABORTED
 * with JOB_CANCELLED, JOB_FAILED or JOB_SUCCEEDED), or it is running or queued without this
 * worker's lease (ABORTED, LEASE_LOST). The worker stops; what it does with an output it stored
 * depends on the reason (execution.proto).
 */
export async function leaseRefusal(db: Queryable, jobId: string, workerId: string): Promise<Error> {
  const row = await findJob(db, jobId);
  if (!row) return new NotFoundError('job');
  if (row.status === 'running' && row.lease_owner === workerId) {
    return new AbortedError('LEASE_LOST', 'the lease changed while the call ran; retry it');
  }
  if (row.status === 'running' || row.status === 'queued') {
    return new AbortedError('LEASE_LOST', "this worker no longer holds the job's lease (it expired or passed to another worker)");
  }
  return new AbortedError(`JOB_${row.status.toUpperCase()}`, `the job is ${row.status}`);
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

import type { Queryable } from '@atelier/db';
import type { JobRow } from '../job-row.js';
import { startDeadlinePassedSql } from '../../domain/start-deadline.js';
import { gateMayHoldSql } from '../provider-gates-sql.js';
import { FOUND_COLUMNS, statusIs } from './transition-sql.js';
import { transitionResultOf, type FoundColumns, type TransitionResult } from './found-job-row.js';

/** One worker asking for one job. */
export interface ClaimRequest {
  jobId: string;
  workerId: string;
}

/** A request the claim left alone because a provider's gate may hold its job (gated-claim.ts decides). */
export interface HeldForGate {
  changed: false;
  heldForGate: true;
}

/**
 * queued → running, for many claims in one statement: the CAS on status makes concurrent claims
 * of one job produce exactly one lease (two claims of one job in one batch match the same row,
 * which is updated once, for one of them). Counts the attempt; a job not yet due (backoff), out
 * of attempts or past its start deadline is not claimed — the deadline is checked here, by the
 * claim itself, so no job starts late however late the sweep that ends it runs. Answers, per
 * request and in request order, the claimed row or the job as found (absent, running, ended, not
 * due). Gates are not looked at: the caller has admitted these jobs.
 */
export async function claim(db: Queryable, requests: readonly ClaimRequest[], leaseTtlMs: number): Promise<TransitionResult[]> {
  return (await claimStatement(db, requests, leaseTtlMs, false)) as TransitionResult[];
}

/**
 * The same claim, except that it leaves alone the jobs a provider's gate may hold back
 * (gateMayHoldSql), answering those HeldForGate: the usual claim — no budget, cap or throttle on
 * the job's provider — stays one statement, and only the held ones take the gated path.
 */
export async function claimHoldingGated(
  db: Queryable,
  requests: readonly ClaimRequest[],
  leaseTtlMs: number,
): Promise<(TransitionResult | HeldForGate)[]> {
  return claimStatement(db, requests, leaseTtlMs, true);
}

async function claimStatement(
  db: Queryable,
  requests: readonly ClaimRequest[],
  leaseTtlMs: number,
  holdGated: boolean,
): Promise<(TransitionResult | HeldForGate)[]> {
  // One request (a lone claim at low load) is bound as scalars, not arrays: Postgres can then keep
  // one generic plan of the statement. Given arrays it plans every execution anew (a custom plan
  // knows the array's length, the generic one guesses 10 rows and looks dearer), and that
  // planning, about half a millisecond, was a sixth of a lone job's submit→start.
  const one = requests.length === 1;
  const { rows } = await db.query<JobRow & FoundColumns & { held_for_gate: boolean }>({
    name: `${holdGated ? 'jobs.claim_holding_gated' : 'jobs.claim'}${one ? '_one' : ''}`,
    text: `WITH requested AS (
             ${one ? 'SELECT $1::uuid AS job_id, $2::text AS worker_id, 1::bigint AS n' : 'SELECT * FROM unnest($1::uuid[], $2::text[]) WITH ORDINALITY AS r(job_id, worker_id, n)'}),
           held AS (
             SELECT j.id FROM jobs.generation_jobs j JOIN requested r ON j.id = r.job_id
              WHERE ${holdGated ? `${statusIs('j', 'queued')} AND ${gateMayHoldSql('j')}` : 'false'}),
           claimed AS (
             UPDATE jobs.generation_jobs j
                SET status = 'running', attempt_count = j.attempt_count + 1, started_at = now(), progress = 0,
                    lease_owner = r.worker_id, lease_expires_at = now() + $3::int * interval '1 millisecond',
                    version = j.version + 1, updated_at = now()
               FROM requested r
              WHERE j.id = r.job_id AND ${statusIs('j', 'queued')} AND j.next_attempt_at <= now() AND j.attempt_count < j.max_attempts
                AND NOT ${startDeadlinePassedSql('j')} AND j.id NOT IN (SELECT id FROM held)
             RETURNING j.*),
           event AS (
             INSERT INTO jobs.job_events (job_id, from_status, to_status, attempt, actor)
             SELECT id, 'queued', 'running', attempt_count, 'worker:' || lease_owner FROM claimed)
           SELECT c.*, ${FOUND_COLUMNS}, h.id IS NOT NULL AS held_for_gate
             FROM requested r
             LEFT JOIN claimed c ON c.id = r.job_id AND c.lease_owner = r.worker_id
             LEFT JOIN jobs.generation_jobs found ON found.id = r.job_id AND c.id IS NULL
             LEFT JOIN held h ON h.id = r.job_id
            ORDER BY r.n`,
    values: one
      ? [requests[0]!.jobId, requests[0]!.workerId, leaseTtlMs]
      : [requests.map((r) => r.jobId), requests.map((r) => r.workerId), leaseTtlMs],
  });
  return rows.map((row) => (row.held_for_gate ? { changed: false, heldForGate: true } : transitionResultOf(row)));
}

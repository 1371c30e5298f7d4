import type { Queryable } from '@atelier/db';
import { statusIs } from './transition-sql.js';

/** One worker's progress of one running job. */
export interface ProgressReport {
  jobId: string;
  workerId: string;
  progress: number;
}

/** What a progress report found: whether it moved the job on, and the job's status and lease owner. */
export interface ProgressOutcome {
  job_id: string;
  /** The progress moved forward (WatchJob streams it). */
  advanced: boolean;
  status: string | null;
  lease_owner: string | null;
}

/**
 * Records the progress of many running jobs in one statement, each only under its reporter's
 * lease and only forward (a late report never moves it back; an equal one changes nothing, not
 * even the version). Not a transition of status: no event, and the lease is left to Heartbeat.
 * Answers per report, in report order, whether it advanced and the job's status and lease owner
 * as found, so the caller can tell a worker which of its jobs no longer run under it.
 */
export async function updateProgress(db: Queryable, reports: readonly ProgressReport[]): Promise<ProgressOutcome[]> {
  const { rows } = await db.query<ProgressOutcome>({
    name: 'jobs.report_progress',
    text: `WITH reported AS (
             SELECT * FROM unnest($1::uuid[], $2::text[], $3::int[]) WITH ORDINALITY AS r(job_id, worker_id, progress, n)),
           advanced AS (
             UPDATE jobs.generation_jobs j
                SET progress = r.progress, version = j.version + 1, updated_at = now()
               FROM reported r
              WHERE j.id = r.job_id AND ${statusIs('j', 'running')} AND j.lease_owner = r.worker_id AND r.progress > j.progress
             RETURNING j.id)
           SELECT r.job_id, EXISTS (SELECT 1 FROM advanced a WHERE a.id = r.job_id) AS advanced, found.status, found.lease_owner
             FROM reported r LEFT JOIN jobs.generation_jobs found ON found.id = r.job_id
            ORDER BY r.n`,
    values: [reports.map((r) => r.jobId), reports.map((r) => r.workerId), reports.map((r) => r.progress)],
  });
  return rows;
}

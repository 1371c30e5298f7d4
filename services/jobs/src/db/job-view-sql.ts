import type { Queryable } from '@atelier/db';
import { NotFoundError } from '@atelier/errors';
import type { JobHistoryEntry, JobRow } from './job-row.js';

type ViewRow = JobRow & {
  /** [from, to, attempt, error code, epoch ms] per event, in order. */
  history: [string | null, string, number, string | null, number][];
  queue_position: string | null;
};

/**
 * A user's job as they see it — the row, its history (for timings) and, while queued, its queue
 * position — in one statement. Anyone else's job does not exist for them (NOT_FOUND). The history
 * comes from job_events, or, once retention pruned those, from the job's archived history (the
 * same tuples; COALESCE reads the archive only when there are no events). The position counts
 * the queued jobs ahead in dispatch order on generation_jobs_dispatch_order_idx, an index range
 * whose cost follows the jobs ahead, not the table.
 */
export async function selectOwnJobView(
  db: Queryable,
  jobId: string,
  userId: string,
): Promise<{ row: JobRow; events: JobHistoryEntry[]; queuePosition: number | undefined }> {
  const { rows } = await db.query<ViewRow>({
    name: 'jobs.read_own_job_view',
    text: `SELECT j.*,
                  coalesce((SELECT json_agg(json_build_array(e.from_status, e.to_status, e.attempt, e.error_code,
                                                             extract(epoch FROM e.occurred_at) * 1000) ORDER BY e.id)
                              FROM jobs.job_events e WHERE e.job_id = j.id),
                           (SELECT h.history::json FROM jobs.job_histories h WHERE h.job_id = j.id), '[]') AS history,
                  CASE WHEN j.status = 'queued' THEN
                    (SELECT count(*) FROM jobs.generation_jobs q
                      WHERE q.status = 'queued' AND q.queue = j.queue
                        AND (q.next_attempt_at, q.created_at, q.id) < (j.next_attempt_at, j.created_at, j.id))
                  END AS queue_position
             FROM jobs.generation_jobs j
            WHERE j.id = $1 AND j.user_id = $2`,
    values: [jobId, userId],
  });
  const found = rows[0];
  if (!found) throw new NotFoundError('job');
  const { history, queue_position: position, ...row } = found;
  const events: JobHistoryEntry[] = history.map(([from, to, attempt, errorCode, atMs]) => ({
    from_status: from,
    to_status: to,
    attempt,
    error_code: errorCode,
    occurred_at: new Date(atMs),
  }));
  return { row, events, queuePosition: position === null ? undefined : Number(position) };
}

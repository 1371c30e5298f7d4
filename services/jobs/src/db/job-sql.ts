import type { Queryable } from '@atelier/db';
import type { MicrosPageCursor } from '@atelier/encoding';
import type { JobEventRow, JobRow } from './job-row.js';

/** Reads of jobs.generation_jobs and jobs.job_events. Nothing here writes. */

export async function selectJob(db: Queryable, jobId: string): Promise<JobRow | null> {
  const result = await db.query<JobRow>({
    name: 'jobs.find_job',
    text: 'SELECT * FROM jobs.generation_jobs WHERE id = $1',
    values: [jobId],
  });
  return result.rows[0] ?? null;
}

/**
 * The job, when this worker's completion is what made it succeed (its job_events say so): a
 * completion repeated by the worker that made it is the success it was; the same output reported
 * by a worker whose lease was taken over (it froze, then woke) is not its success.
 */
export async function selectJobSucceededBy(db: Queryable, jobId: string, workerId: string): Promise<JobRow | null> {
  const result = await db.query<JobRow>({
    name: 'jobs.find_job_succeeded_by',
    text: `SELECT j.* FROM jobs.generation_jobs j
            WHERE j.id = $1 AND j.status = 'succeeded'
              AND EXISTS (SELECT 1 FROM jobs.job_events e WHERE e.job_id = j.id AND e.to_status = 'succeeded' AND e.actor = 'worker:' || $2)`,
    values: [jobId, workerId],
  });
  return result.rows[0] ?? null;
}

export async function selectJobByIdempotencyKey(db: Queryable, userId: string, idempotencyKey: string): Promise<JobRow | null> {
  const result = await db.query<JobRow>({
    name: 'jobs.find_job_by_key',
    text: 'SELECT * FROM jobs.generation_jobs WHERE user_id = $1 AND idempotency_key = $2',
    values: [userId, idempotencyKey],
  });
  return result.rows[0] ?? null;
}

/** Jobs ahead of a queued job in its queue, in dispatch order (due time, age, id). */
export async function countQueuedAhead(db: Queryable, job: JobRow): Promise<number> {
  const result = await db.query<{ ahead: string }>({
    name: 'jobs.queue_position',
    text: `SELECT count(*) AS ahead
             FROM jobs.generation_jobs q, jobs.generation_jobs me
            WHERE me.id = $1 AND q.status = 'queued' AND q.queue = me.queue
              AND (q.next_attempt_at, q.created_at, q.id) < (me.next_attempt_at, me.created_at, me.id)`,
    values: [job.id],
  });
  return Number(result.rows[0]!.ahead);
}

/**
 * The events of the jobs, by job in order. A job whose events retention pruned answers its
 * archived history instead (jobs.job_histories): the same transitions, statuses, attempts, error
 * codes and times, so the timings computed from them do not change; what the archive does not
 * keep reads as id 0, actor `archived` and no error class or detail.
 */
export async function selectJobEvents(db: Queryable, jobIds: readonly string[]): Promise<JobEventRow[]> {
  if (jobIds.length === 0) return [];
  const result = await db.query<JobEventRow>({
    name: 'jobs.list_events',
    text: `SELECT id, job_id, from_status, to_status, attempt, actor, error_class, error_code, detail, occurred_at FROM (
             SELECT e.id, e.job_id, e.from_status, e.to_status, e.attempt, e.actor, e.error_class, e.error_code, e.detail,
                    e.occurred_at, e.id AS seq
               FROM jobs.job_events e WHERE e.job_id = ANY($1::uuid[])
             UNION ALL
             SELECT 0, h.job_id, t.entry->>0, t.entry->>1, (t.entry->>2)::smallint, 'archived', NULL, t.entry->>3, NULL,
                    to_timestamp((t.entry->>4)::double precision / 1000), t.seq
               FROM jobs.job_histories h CROSS JOIN LATERAL jsonb_array_elements(h.history) WITH ORDINALITY AS t(entry, seq)
              WHERE h.job_id = ANY($1::uuid[])) AS history
           ORDER BY job_id, seq`,
    values: [jobIds],
  });
  return result.rows;
}

export interface JobFilter {
  userId?: string;
  status?: string;
  jobType?: string;
  queue?: string;
  createdAfter?: Date;
  createdBefore?: Date;
}

/**
 * One page in (created_at DESC, id DESC) order after the cursor, with one extra row to know
 * whether another page follows. With a user it runs on generation_jobs_user_created_idx,
 * without one on generation_jobs_created_idx; the cursor is a keyset, so pages stay stable
 * while new jobs arrive.
 */
export async function selectJobs(
  db: Queryable,
  filter: JobFilter,
  cursor: MicrosPageCursor | undefined,
  limit: number,
): Promise<(JobRow & { created_micros: string })[]> {
  const conditions: string[] = [];
  const values: unknown[] = [];
  const add = (sql: string, value: unknown) => {
    values.push(value);
    conditions.push(sql.replace('?', `$${values.length}`));
  };
  if (filter.userId !== undefined) add('user_id = ?', filter.userId);
  if (filter.status !== undefined) add('status = ?', filter.status);
  if (filter.jobType !== undefined) add('job_type = ?', filter.jobType);
  if (filter.queue !== undefined) add('queue = ?', filter.queue);
  if (filter.createdAfter !== undefined) add('created_at >= ?', filter.createdAfter);
  if (filter.createdBefore !== undefined) add('created_at < ?', filter.createdBefore);
  if (cursor) {
    values.push(cursor.createdMicros, cursor.id);
    conditions.push(
      `(created_at, id) < ('epoch'::timestamptz + $${values.length - 1}::bigint * interval '1 microsecond', $${values.length}::uuid)`,
    );
  }
  values.push(limit + 1);
  const where = conditions.length ? `WHERE ${conditions.join(' AND ')}` : '';
  const result = await db.query<JobRow & { created_micros: string }>(
    `SELECT *, (extract(epoch FROM created_at) * 1000000)::bigint::text AS created_micros
       FROM jobs.generation_jobs ${where} ORDER BY created_at DESC, id DESC LIMIT $${values.length}`,
    values,
  );
  return result.rows;
}

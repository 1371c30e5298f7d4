import type { jobsV1 } from '@atelier/contracts';
import type { Queryable } from '@atelier/db';
import { countQueuedAhead, selectJobEvents } from '../db/job-sql.js';
import type { JobRow } from '../db/job-row.js';
import { selectOwnJobView } from '../db/job-view-sql.js';
import { toJobMessage } from './job-mapper.js';

/** A job with its timings and, while queued, its queue position. */
export async function describeJob(db: Queryable, row: JobRow): Promise<jobsV1.Job> {
  const [events, position] = await Promise.all([
    selectJobEvents(db, [row.id]),
    row.status === 'queued' ? countQueuedAhead(db, row) : undefined,
  ]);
  return toJobMessage(row, { events, queuePosition: position });
}

/** A user's job as they see it, in one statement (selectOwnJobView); anyone else's job is NOT_FOUND. */
export async function readOwnJobView(db: Queryable, jobId: string, userId: string): Promise<{ row: JobRow; job: jobsV1.Job }> {
  const { row, events, queuePosition } = await selectOwnJobView(db, jobId, userId);
  return { row, job: toJobMessage(row, { events, queuePosition }) };
}

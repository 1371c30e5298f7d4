import type { jobsV1 } from '@atelier/contracts';
import type { Queryable } from '@atelier/db';
import { NotFoundError } from '@atelier/errors';
import { findJob, listEvents, queuePosition } from './db/job-queries.js';
import type { JobRow } from './db/job-row.js';
import { toJobMessage } from './job-mapper.js';

/** A job with its timings and, while queued, its queue position. */
export async function describeJob(db: Queryable, row: JobRow): Promise<jobsV1.Job> {
  const [events, position] = await Promise.all([listEvents(db, [row.id]), row.status === 'queued' ? queuePosition(db, row) : undefined]);
  return toJobMessage(row, { events, queuePosition: position });
}

/** The job if it is the user's; anyone else's job does not exist for them. */
export async function findOwnJob(db: Queryable, jobId: string, userId: string): Promise<JobRow> {
  const row = await findJob(db, jobId);
  if (!row || row.user_id !== userId) throw new NotFoundError('job');
  return row;
}

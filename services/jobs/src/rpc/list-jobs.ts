import { type jobsV1 } from '@atelier/contracts';
import { decodeMicrosPageToken, encodeMicrosPageToken, pageSize } from '@atelier/encoding';
import type { Handler } from '@atelier/grpc';
import { requireUserId } from '@atelier/validation';
import { selectJobEvents, selectJobs } from '../db/job-sql.js';
import { storedStatus } from '../domain/job-state-machine.js';
import type { JobsContext } from '../jobs-context.js';
import { toJobMessage } from './job-mapper.js';

type ListJobs = Handler<typeof jobsV1.JobsServiceService.listJobs>;

/** The user's jobs, newest first, keyset-paginated, optionally of one status. */
export function listJobs({ pool }: JobsContext): ListJobs {
  return async (request) => {
    const userId = requireUserId(request.userId, 'user_id');
    const limit = pageSize(request.pageSize);
    const cursor = decodeMicrosPageToken(request.pageToken);
    const rows = await selectJobs(pool, { userId, status: storedStatus(request.status) }, cursor, limit);
    const page = rows.slice(0, limit);
    const events = await selectJobEvents(
      pool,
      page.map((row) => row.id),
    );
    const last = page.at(-1);
    return {
      jobs: page.map((row) => toJobMessage(row, { events: events.filter((e) => e.job_id === row.id) })),
      nextPageToken: rows.length > limit && last ? encodeMicrosPageToken({ createdMicros: last.created_micros, id: last.id }) : '',
    };
  };
}

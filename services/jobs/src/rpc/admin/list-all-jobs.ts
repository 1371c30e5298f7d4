import type { jobsAdminV1 } from '@atelier/contracts';
import { decodeMicrosPageToken, encodeMicrosPageToken, pageSize } from '@atelier/encoding';
import type { Handler } from '@atelier/grpc';
import { requireUserId } from '@atelier/validation';
import { selectJobEvents, selectJobs } from '../../db/job-sql.js';
import { storedStatus } from '../../domain/job-state-machine.js';
import type { JobsContext } from '../../jobs-context.js';
import { storedQueue, toAdminJobMessage } from '../job-mapper.js';

type ListAllJobs = Handler<typeof jobsAdminV1.JobsAdminServiceService.listAllJobs>;

/** Every user's jobs, newest first, filtered by type, status, queue, user and creation time. */
export function listAllJobs(context: JobsContext): ListAllJobs {
  return async (request) => {
    if (request.jobType) context.registry.get(request.jobType);
    const limit = pageSize(request.pageSize);
    const rows = await selectJobs(
      context.pool,
      {
        userId: request.userId === undefined ? undefined : requireUserId(request.userId, 'user_id'),
        status: storedStatus(request.status),
        jobType: request.jobType || undefined,
        queue: storedQueue(request.queue),
        createdAfter: request.createdAfter,
        createdBefore: request.createdBefore,
      },
      decodeMicrosPageToken(request.pageToken),
      limit,
    );
    const page = rows.slice(0, limit);
    const events = await selectJobEvents(
      context.pool,
      page.map((row) => row.id),
    );
    const last = page.at(-1);
    return {
      jobs: page.map((row) =>
        toAdminJobMessage(
          row,
          events.filter((e) => e.job_id === row.id),
        ),
      ),
      nextPageToken: rows.length > limit && last ? encodeMicrosPageToken({ createdMicros: last.created_micros, id: last.id }) : '',
    };
  };
}

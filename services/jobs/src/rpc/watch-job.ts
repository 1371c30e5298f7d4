import type { jobsV1 } from '@atelier/contracts';
import type { Handler } from '@atelier/grpc';
import { requireUserId, requireUuid } from '@atelier/validation';
import { findJob } from '../db/job-queries.js';
import { isTerminal } from '../domain/job-state-machine.js';
import type { JobsContext } from '../jobs-context.js';
import { describeJob, findOwnJob } from '../job-view.js';

type WatchJob = Handler<typeof jobsV1.JobsServiceService.watchJob>;

/**
 * Streams the job each time its version moves (status, progress), starting with the current
 * state unless the client has seen it (after_version), and ends after a terminal state. Reads the
 * job only when woken by a change (made on any replica, see JobWatchHub) or by its slow safety
 * timer (WATCH_REREAD_MS): an idle stream costs the database nothing.
 */
export function watchJob(context: JobsContext): WatchJob {
  return async (request, stream, call) => {
    context.metrics.watchStreamsOpen.inc();
    try {
      const jobId = requireUuid(request.jobId, 'job_id');
      let row = await findOwnJob(context.pool, jobId, requireUserId(request.userId, 'user_id'));
      let sentVersion = request.afterVersion;
      while (!call.signal.aborted) {
        if (row.version > sentVersion) {
          await stream.write({ job: await describeJob(context.pool, row) });
          sentVersion = row.version;
        }
        if (isTerminal(row.status)) return;
        await context.watchHub.next(jobId, context.watchRereadMs, call.signal);
        row = (await findJob(context.pool, jobId)) ?? row;
      }
    } finally {
      context.metrics.watchStreamsOpen.dec();
    }
  };
}

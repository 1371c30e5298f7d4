import type { jobsV1 } from '@atelier/contracts';
import type { Handler } from '@atelier/grpc';
import { requireUserId, requireUuid } from '@atelier/validation';
import { isTerminal } from '../domain/job-state-machine.js';
import type { JobsContext } from '../jobs-context.js';
import { readOwnJobView } from './user-job-view.js';

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
      const userId = requireUserId(request.userId, 'user_id');
      let view = await readOwnJobView(context.pool, jobId, userId);
      let sentVersion = request.afterVersion;
      while (!call.signal.aborted) {
        if (view.row.version > sentVersion) {
          await stream.write({ job: view.job });
          sentVersion = view.row.version;
        }
        if (isTerminal(view.row.status)) return;
        await context.watchHub.next(jobId, context.watchRereadMs, call.signal);
        view = await readOwnJobView(context.pool, jobId, userId);
      }
    } finally {
      context.metrics.watchStreamsOpen.dec();
    }
  };
}

import type { jobsExecutionV1 } from '@atelier/contracts';
import { InvalidArgumentError } from '@atelier/errors';
import type { Handler } from '@atelier/grpc';
import { requireIntInRange, requireUuid } from '@atelier/validation';
import type { JobsContext } from '../jobs-context.js';
import { announce } from '../announce/announce.js';
import { stopReasonFor } from './lease-refusal.js';
import { updateProgress, type ProgressReport } from '../db/transitions/progress-sql.js';
import { requireWorkerId } from './worker-id.js';

type ReportProgress = Handler<typeof jobsExecutionV1.JobExecutionServiceService.reportProgress>;

/** More than a worker runs at once by far; a bigger batch is a client bug. */
const MAX_REPORTS = 1_000;

/**
 * Progress of running jobs, many per call, as workers see it change: WatchJob (and the app's
 * Server-Sent Events) show it at once. Answers the reported jobs that no longer run under their
 * reporter — cancelled, reaped or finished — so a worker that missed a pushed cancel stops within
 * a second.
 */
export function reportProgress(context: JobsContext): ReportProgress {
  return async (request) => {
    if (request.reports.length > MAX_REPORTS) throw new InvalidArgumentError('reports', `at most ${MAX_REPORTS} per call`);
    const reports: ProgressReport[] = request.reports.map((report, i) => ({
      jobId: requireUuid(report.jobId, `reports[${i}].job_id`),
      workerId: requireWorkerId(report.workerId),
      progress: requireIntInRange(report.progress, `reports[${i}].progress`, 0, 100),
    }));
    if (reports.length === 0) return { stopped: [] };
    const outcomes = await updateProgress(context.pool, reports);
    announce(
      context,
      'progressed',
      outcomes.filter((outcome) => outcome.advanced).map((outcome) => ({ id: outcome.job_id })),
    );
    const stopped: jobsExecutionV1.StoppedJob[] = [];
    outcomes.forEach((outcome, i) => {
      if (outcome.status !== 'running' || outcome.lease_owner !== reports[i]!.workerId) {
        stopped.push({ jobId: outcome.job_id, reason: stopReasonFor(outcome.status) });
      }
    });
    return { stopped };
  };
}

import { type jobsExecutionV1 } from '@atelier/contracts';
import { InternalError } from '@atelier/errors';
import { MicroBatcher } from '@atelier/batching';
import { fromStatusDetails, type PromiseClient } from '@atelier/grpc';

/**
 * The worker's claims, completions and progress reports, coalesced into ClaimJobs / CompleteJobs
 * / ReportProgress calls: with many jobs in hand one call carries many of them, and a lone one
 * still goes out at once.
 */
export interface ExecutionBatches {
  claim(request: jobsExecutionV1.ClaimJobRequest): Promise<jobsExecutionV1.ClaimJobResponse>;
  /** Rejects with the entry's refusal as an AppError, like CompleteJob would. */
  complete(request: jobsExecutionV1.CompleteJobRequest): Promise<jobsExecutionV1.CompleteJobResponse>;
  /** Reports a running job's progress; answers why to stop when it no longer runs under this worker. */
  reportProgress(report: jobsExecutionV1.ProgressReport): Promise<jobsExecutionV1.StopReason | undefined>;
}

export function createExecutionBatches(execution: PromiseClient<jobsExecutionV1.JobExecutionServiceClient>): ExecutionBatches {
  const options = { maxBatch: 200, maxConcurrent: 2 };
  const claims = new MicroBatcher<jobsExecutionV1.ClaimJobRequest, jobsExecutionV1.ClaimJobResponse>(
    async (requests) => (await execution.claimJobs({ claims: requests })).results,
    options,
  );
  const completions = new MicroBatcher<jobsExecutionV1.CompleteJobRequest, jobsExecutionV1.CompleteJobsResult>(
    async (requests) => (await execution.completeJobs({ completions: requests })).results,
    options,
  );
  const progress = new MicroBatcher<jobsExecutionV1.ProgressReport, jobsExecutionV1.StopReason | undefined>(async (reports) => {
    const { stopped } = await execution.reportProgress({ reports });
    return reports.map((report) => stopped.find((entry) => entry.jobId === report.jobId)?.reason);
  }, options);
  return {
    claim: (request) => claims.submit(request),
    reportProgress: (report) => progress.submit(report),
    async complete(request) {
      const { result } = await completions.submit(request);
      if (result?.$case === 'completed') return result.completed;
      throw result?.$case === 'error' ? fromStatusDetails(result.error) : new InternalError('empty batch result');
    },
  };
}

import { jobsExecutionV1 } from '@atelier/contracts';
import { ErrorCode, isAppError } from '@atelier/errors';
import { createServiceClient, type GrpcSecurity } from '@atelier/grpc';
import type { JobOwnerLookup } from '../fanout/lifecycle-fanout.js';

/**
 * Asks the jobs service for a job's status and owner (JobExecutionService.GetJobStatus). A job
 * jobs does not know is undefined; any other failure throws, so the event is retried later.
 */
export function jobOwnerLookup(jobsAddress: string, security: GrpcSecurity): { lookup: JobOwnerLookup; close(): void } {
  const client = createServiceClient(jobsExecutionV1.JobExecutionServiceClient, jobsAddress, security);
  return {
    lookup: async (jobId) => {
      try {
        const answer = await client.getJobStatus({ jobId });
        return { status: answer.status, userId: answer.userId };
      } catch (error) {
        if (isAppError(error) && (error.code === ErrorCode.NOT_FOUND || error.code === ErrorCode.INVALID_ARGUMENT)) return undefined;
        throw error;
      }
    },
    close: () => client.close(),
  };
}

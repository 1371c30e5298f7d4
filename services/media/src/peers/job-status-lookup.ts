import { jobsExecutionV1, type jobsV1 } from '@atelier/contracts';
import { ErrorCode, isAppError } from '@atelier/errors';
import { createServiceClient, type GrpcSecurity } from '@atelier/grpc';

/**
 * Asks the jobs service for a job's status (JobExecutionService.GetJobStatus). A job jobs does
 * not know is undefined; any other failure throws, so the event is retried later.
 */
export function jobsStatusLookup(
  jobsAddress: string,
  security: GrpcSecurity,
): { lookup: (jobId: string) => Promise<jobsV1.JobStatus | undefined>; close(): void } {
  const client = createServiceClient(jobsExecutionV1.JobExecutionServiceClient, jobsAddress, security);
  return {
    lookup: async (jobId) => {
      try {
        return (await client.getJobStatus({ jobId })).status;
      } catch (error) {
        if (isAppError(error) && (error.code === ErrorCode.NOT_FOUND || error.code === ErrorCode.INVALID_ARGUMENT)) return undefined;
        throw error;
      }
    },
    close: () => client.close(),
  };
}

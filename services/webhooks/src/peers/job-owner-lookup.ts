import { jobsExecutionV1, type jobsV1 } from '@atelier/contracts';
import { ErrorCode, isAppError } from '@atelier/errors';
import { createServiceClient, type GrpcSecurity } from '@atelier/grpc';

/**
 * Asks the jobs service for a job's status and owner (JobExecutionService.GetJobStatus). A job
 * jobs does not know is undefined; any other failure throws, so the event is retried later.
 */
export function jobOwnerLookup(
  jobsAddress: string,
  security: GrpcSecurity,
): { lookup: (jobId: string) => Promise<{ status: jobsV1.JobStatus; userId: string } | undefined>; close(): void } {
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

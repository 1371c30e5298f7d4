import { jobsExecutionV1, jobsV1, mediaV1 } from '@atelier/contracts';
import { createServiceClient, type PromiseClient } from '@atelier/grpc';

/**
 * The clients media tests use: one place to give them the credentials internal gRPC requires.
 */
export function mediaTestClient(address: string): PromiseClient<mediaV1.MediaServiceClient> {
  return createServiceClient(mediaV1.MediaServiceClient, address, { defaultDeadlineMs: 60_000 });
}

/** The jobs clients media tests drive a real jobs process with (user and execution APIs). */
export function jobsTestClients(address: string): {
  jobs: PromiseClient<jobsV1.JobsServiceClient>;
  execution: PromiseClient<jobsExecutionV1.JobExecutionServiceClient>;
  close(): void;
} {
  const jobs = createServiceClient(jobsV1.JobsServiceClient, address, { defaultDeadlineMs: 15_000 });
  const execution = createServiceClient(jobsExecutionV1.JobExecutionServiceClient, address, { defaultDeadlineMs: 15_000 });
  return {
    jobs,
    execution,
    close() {
      jobs.close();
      execution.close();
    },
  };
}

import { jobsExecutionV1, jobsV1, mediaV1 } from '@atelier/contracts';
import type { PromiseClient } from '@atelier/grpc';
import { testClient } from '@atelier/testing';

/**
 * Media as `identity` calls it (the gateway for uploads, the worker for server assets): one place
 * for the certificates internal gRPC requires.
 */
export function mediaTestClient(address: string, identity: 'gateway' | 'worker'): Promise<PromiseClient<mediaV1.MediaServiceClient>> {
  return testClient(mediaV1.MediaServiceClient, address, identity, { defaultDeadlineMs: 60_000 });
}

/** The jobs clients media tests drive a real jobs process with: the user API as the gateway, execution as a worker. */
export async function jobsTestClients(address: string): Promise<{
  jobs: PromiseClient<jobsV1.JobsServiceClient>;
  execution: PromiseClient<jobsExecutionV1.JobExecutionServiceClient>;
  close(): void;
}> {
  const jobs = await testClient(jobsV1.JobsServiceClient, address, 'gateway', { defaultDeadlineMs: 15_000 });
  const execution = await testClient(jobsExecutionV1.JobExecutionServiceClient, address, 'worker', { defaultDeadlineMs: 15_000 });
  return {
    jobs,
    execution,
    close() {
      jobs.close();
      execution.close();
    },
  };
}

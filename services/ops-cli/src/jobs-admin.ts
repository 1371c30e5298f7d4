import { jobsAdminV1 } from '@atelier/contracts';
import type { AppError } from '@atelier/errors';
import type { PromiseClient } from '@atelier/grpc';
import { connectOperatorApi, peerError, type OperatorAccess, type OperatorApi } from './operator-grpc.js';

/**
 * The jobs operator API (`atelier.jobs.v1.JobsAdminService`), over mutual TLS: jobs lets the
 * identity `ops` (and the gateway, which checks the admin role for HTTP callers) call it, so an
 * operator needs a certificate for `spiffe://<trust domain>/svc/ops` from the platform's CA.
 */
export type JobsAdminClient = PromiseClient<jobsAdminV1.JobsAdminServiceClient>;

const JOBS_API: OperatorApi<jobsAdminV1.JobsAdminServiceClient, 'JOBS_ADDR'> = {
  client: jobsAdminV1.JobsAdminServiceClient,
  api: 'the jobs admin API',
  variable: 'JOBS_ADDR',
  component: 'jobs',
  reason: 'JOBS_UNREACHABLE',
};

export function connectJobsAdmin(config: OperatorAccess<'JOBS_ADDR'>, timeoutMs: number): JobsAdminClient {
  return connectOperatorApi(JOBS_API, config, timeoutMs);
}

/** A failed jobs call, with a way forward when jobs could not be reached at all. */
export function jobsError(error: unknown, address: string, namespace: string): AppError {
  return peerError(error, JOBS_API, address, namespace);
}

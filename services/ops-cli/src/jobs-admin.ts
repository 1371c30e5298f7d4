import { jobsAdminV1 } from '@atelier/contracts';
import type { AppError } from '@atelier/errors';
import { createServiceClient, type PromiseClient } from '@atelier/grpc';
import { OPERATOR_CALL_ATTEMPTS, operatorSecurity, peerError, type OperatorPeer } from './operator-grpc.js';
import type { OpsConfig } from './ops-config.js';

/**
 * The jobs operator API (`atelier.jobs.v1.JobsAdminService`), over mutual TLS: jobs lets the
 * identity `ops` (and the gateway, which checks the admin role for HTTP callers) call it, so an
 * operator needs a certificate for `spiffe://<trust domain>/svc/ops` from the platform's CA.
 */
export type JobsAdminClient = PromiseClient<jobsAdminV1.JobsAdminServiceClient>;

type JobsAdminAccess = Pick<OpsConfig, 'JOBS_ADDR' | 'GRPC_TLS_CA_FILE' | 'GRPC_TLS_CERT_FILE' | 'GRPC_TLS_KEY_FILE' | 'GRPC_TRUST_DOMAIN'>;

const JOBS_API = 'the jobs admin API';

export function connectJobsAdmin(config: JobsAdminAccess, timeoutMs: number): JobsAdminClient {
  return createServiceClient(jobsAdminV1.JobsAdminServiceClient, config.JOBS_ADDR, operatorSecurity(config, JOBS_API), {
    defaultDeadlineMs: timeoutMs,
    maxAttempts: OPERATOR_CALL_ATTEMPTS,
  });
}

function jobsPeer(address: string): OperatorPeer {
  return { api: JOBS_API, address, variable: 'JOBS_ADDR', component: 'jobs', port: 50053, reason: 'JOBS_UNREACHABLE' };
}

/** A failed jobs call, with a way forward when jobs could not be reached at all. */
export function jobsError(error: unknown, address: string, namespace: string): AppError {
  return peerError(error, jobsPeer(address), namespace);
}

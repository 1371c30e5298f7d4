import { jobsAdminV1 } from '@atelier/contracts';
import { AppError, ErrorCode, isAppError, isTransientError } from '@atelier/errors';
import { createServiceClient, loadGrpcSecurity, type PromiseClient } from '@atelier/grpc';
import type { OpsConfig } from './ops-config.js';

/**
 * The jobs operator API (`atelier.jobs.v1.JobsAdminService`), over mutual TLS: jobs lets the
 * identity `ops` (and the gateway, which checks the admin role for HTTP callers) call it, so an
 * operator needs a certificate for `spiffe://<trust domain>/svc/ops` from the platform's CA.
 */
export type JobsAdminClient = PromiseClient<jobsAdminV1.JobsAdminServiceClient>;

type JobsAdminAccess = Pick<OpsConfig, 'JOBS_ADDR' | 'GRPC_TLS_CA_FILE' | 'GRPC_TLS_CERT_FILE' | 'GRPC_TLS_KEY_FILE' | 'GRPC_TRUST_DOMAIN'>;

export function connectJobsAdmin(config: JobsAdminAccess, timeoutMs: number): JobsAdminClient {
  const { GRPC_TLS_CA_FILE, GRPC_TLS_CERT_FILE, GRPC_TLS_KEY_FILE, GRPC_TRUST_DOMAIN } = config;
  if (!GRPC_TLS_CA_FILE || !GRPC_TLS_CERT_FILE || !GRPC_TLS_KEY_FILE) {
    throw new AppError(
      ErrorCode.FAILED_PRECONDITION,
      'the jobs admin API needs an operator certificate: set GRPC_TLS_CA_FILE, GRPC_TLS_CERT_FILE and GRPC_TLS_KEY_FILE ' +
        '(identity `ops` from the platform CA; `npm start` writes one to .data/dev-pki/ops.crt)',
      { reason: 'OPERATOR_CERTIFICATE_MISSING' },
    );
  }
  let security;
  try {
    security = loadGrpcSecurity({ GRPC_TLS_CA_FILE, GRPC_TLS_CERT_FILE, GRPC_TLS_KEY_FILE, GRPC_TRUST_DOMAIN });
  } catch (error) {
    throw new AppError(ErrorCode.FAILED_PRECONDITION, (error as Error).message, {
      reason: 'OPERATOR_CERTIFICATE_UNREADABLE',
      cause: error,
    });
  }
  // Two attempts: one retry rides out a jobs pod restarting, more would only delay the answer
  // an operator is waiting for at a terminal.
  return createServiceClient(jobsAdminV1.JobsAdminServiceClient, config.JOBS_ADDR, security, {
    defaultDeadlineMs: timeoutMs,
    maxAttempts: 2,
  });
}

/**
 * grpc-js explains a refused connection as "round_robin: No connection established. Last error:
 * … Error: connect ECONNREFUSED 127.0.0.1:50053. Resolution note: ." — the socket error is the
 * part an operator needs.
 */
function connectionDetail(message: string): string {
  return /(?:connect|getaddrinfo) E[A-Z]+(?: [^\s.]+(?:\.[^\s.]+)*(?::\d+)?)?/.exec(message)?.[0] ?? message;
}

/** A failed jobs call, with a way forward when jobs could not be reached at all. */
export function jobsError(error: unknown, address: string, namespace: string): AppError {
  const appError = isAppError(error) ? error : new AppError(ErrorCode.INTERNAL, String(error), { cause: error });
  if (!isTransientError(appError)) return appError;
  return new AppError(
    appError.code,
    `cannot reach the jobs admin API at ${address} (JOBS_ADDR): ${connectionDetail(appError.message)}. Is jobs running? ` +
      `In a cluster, forward its Service first, e.g. \`kubectl -n ${namespace} port-forward svc/<release>-jobs 50053:50053\``,
    { reason: 'JOBS_UNREACHABLE', cause: error },
  );
}

import { jobsAdminV1 } from '@atelier/contracts';
import { AppError, ErrorCode, isAppError, isTransientError } from '@atelier/errors';
import { createServiceClient, type PromiseClient } from '@atelier/grpc';

/**
 * The jobs operator API (`atelier.jobs.v1.JobsAdminService`). It takes no credentials: it is
 * served on the cluster network only (the gateway fronts it for HTTP callers and checks the
 * admin role there), so reaching JOBS_ADDR — a port-forward from an operator's machine — is the
 * access control.
 */
export type JobsAdminClient = PromiseClient<jobsAdminV1.JobsAdminServiceClient>;

export function connectJobsAdmin(address: string, timeoutMs: number): JobsAdminClient {
  // Two attempts: one retry rides out a jobs pod restarting, more would only delay the answer
  // an operator is waiting for at a terminal.
  return createServiceClient(jobsAdminV1.JobsAdminServiceClient, address, { defaultDeadlineMs: timeoutMs, maxAttempts: 2 });
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

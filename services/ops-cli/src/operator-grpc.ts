import { AppError, ErrorCode, isAppError, isTransientError } from '@atelier/errors';
import {
  createServiceClient,
  loadGrpcSecurity,
  type ClientConstructor,
  type GrpcClient,
  type GrpcSecurity,
  type PromiseClient,
} from '@atelier/grpc';
import { platformService } from '@atelier/platform';
import type { OpsConfig } from './ops-config.js';

/**
 * What atelier-ops shares between the gRPC APIs it calls (jobs admin, catalog): the operator's
 * certificate — one `ops` identity from the platform CA, which each server authorizes per method —
 * and the way forward when a service cannot be reached.
 */

type OperatorTls = Pick<OpsConfig, 'GRPC_TLS_CA_FILE' | 'GRPC_TLS_CERT_FILE' | 'GRPC_TLS_KEY_FILE' | 'GRPC_TRUST_DOMAIN'>;

/** The operator's mutual-TLS credentials; `api` names what needs them in the error. */
export function operatorSecurity(config: OperatorTls, api: string): GrpcSecurity {
  const { GRPC_TLS_CA_FILE, GRPC_TLS_CERT_FILE, GRPC_TLS_KEY_FILE, GRPC_TRUST_DOMAIN } = config;
  if (!GRPC_TLS_CA_FILE || !GRPC_TLS_CERT_FILE || !GRPC_TLS_KEY_FILE) {
    throw new AppError(
      ErrorCode.FAILED_PRECONDITION,
      `${api} needs an operator certificate: set GRPC_TLS_CA_FILE, GRPC_TLS_CERT_FILE and GRPC_TLS_KEY_FILE ` +
        '(identity `ops` from the platform CA; `npm start` writes one to .data/dev-pki/ops.crt)',
      { reason: 'OPERATOR_CERTIFICATE_MISSING' },
    );
  }
  try {
    return loadGrpcSecurity({ GRPC_TLS_CA_FILE, GRPC_TLS_CERT_FILE, GRPC_TLS_KEY_FILE, GRPC_TRUST_DOMAIN });
  } catch (error) {
    throw new AppError(ErrorCode.FAILED_PRECONDITION, (error as Error).message, {
      reason: 'OPERATOR_CERTIFICATE_UNREADABLE',
      cause: error,
    });
  }
}

/**
 * Two attempts: one retry rides out a pod restarting, more would only delay the answer an
 * operator is waiting for at a terminal.
 */
export const OPERATOR_CALL_ATTEMPTS = 2;

/** A gRPC API atelier-ops calls: its client, and how its unreachability is explained. */
export interface OperatorApi<C extends GrpcClient, V extends AddressVariable = AddressVariable> {
  readonly client: ClientConstructor<C>;
  /** e.g. "the jobs admin API". */
  readonly api: string;
  /** The variable that sets the address, e.g. JOBS_ADDR. */
  readonly variable: V;
  /** The platform service (libs/platform) serving it: the chart component and its port, for the port-forward hint. */
  readonly component: string;
  /** e.g. JOBS_UNREACHABLE. */
  readonly reason: string;
}

/** The variables that set where the operator APIs are. */
type AddressVariable = 'JOBS_ADDR' | 'CATALOG_ADDR';

/** What connecting to the operator API at variable V reads of the configuration. */
export type OperatorAccess<V extends AddressVariable> = OperatorTls & Pick<OpsConfig, V>;

/** A client of `api` at the address its variable sets, as the operator (`ops`), each call bounded by timeoutMs. */
export function connectOperatorApi<C extends GrpcClient, V extends AddressVariable>(
  api: OperatorApi<C, V>,
  config: OperatorAccess<V>,
  timeoutMs: number,
): PromiseClient<C> {
  return createServiceClient(api.client, config[api.variable], operatorSecurity(config, api.api), {
    defaultDeadlineMs: timeoutMs,
    maxAttempts: OPERATOR_CALL_ATTEMPTS,
  });
}

/**
 * A call that found no connection explains it as "no connection to 127.0.0.1:50053 (last error:
 * connect ECONNREFUSED 127.0.0.1:50053)" (grpc-js's streams: "round_robin: No connection
 * established. Last error: … Error: connect ECONNREFUSED …") — the socket error is the part an
 * operator needs.
 */
function connectionDetail(message: string): string {
  return /(?:connect|getaddrinfo) E[A-Z]+(?: [^\s.]+(?:\.[^\s.]+)*(?::\d+)?)?/.exec(message)?.[0] ?? message;
}

/** A failed call of `peer` at `address`, with a way forward when the service could not be reached at all. */
export function peerError(error: unknown, peer: OperatorApi<GrpcClient>, address: string, namespace: string): AppError {
  const appError = isAppError(error) ? error : new AppError(ErrorCode.INTERNAL, String(error), { cause: error });
  if (!isTransientError(appError)) return appError;
  const { port } = platformService(peer.component);
  return new AppError(
    appError.code,
    `cannot reach ${peer.api} at ${address} (${peer.variable}): ${connectionDetail(appError.message)}. Is ${peer.component} running? ` +
      `In a cluster, forward its Service first, e.g. \`kubectl -n ${namespace} port-forward svc/<release>-${peer.component} ${port}:${port}\``,
    { reason: peer.reason, cause: error },
  );
}

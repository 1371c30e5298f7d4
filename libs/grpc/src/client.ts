import {
  Metadata,
  type CallOptions,
  type ChannelCredentials,
  type Client,
  type ClientUnaryCall,
  type ServiceDefinition,
  type ServiceError,
} from '@grpc/grpc-js';
import { fromServiceError } from './service-errors.js';
import { channelCredentialsOf, serverNameOfService, tlsChannelOptions, type GrpcSecurity } from './transport-security.js';

/** Per-call options of a promise client method. */
export interface UnaryCallOptions {
  /** Overrides the client's default deadline for this call. */
  deadlineMs?: number;
  metadata?: Metadata;
  /** Cancels the call (the promise rejects with CANCELLED). */
  signal?: AbortSignal;
}

type UnaryMethod<Req, Res> = (
  request: Req,
  metadata: Metadata,
  options: Partial<CallOptions>,
  callback: (error: ServiceError | null, response: Res) => void,
) => ClientUnaryCall;

/**
 * A ts-proto grpc-js client with every unary method as `(request, options?) => Promise<response>`
 * whose failures are domain errors (`AppError`, see `@atelier/errors`). Streaming methods are
 * reached through `raw`.
 */
export type PromiseClient<C> = {
  [K in keyof C as C[K] extends UnaryMethod<infer _Req, infer _Res> ? K : never]: C[K] extends UnaryMethod<infer Req, infer Res>
    ? (request: Req, options?: UnaryCallOptions) => Promise<Res>
    : never;
} & {
  /** The underlying grpc-js client, for streaming calls. */
  readonly raw: C;
  /** Closes the channel. */
  close(): void;
};

export interface ClientConstructor<C extends Client> {
  new (address: string, creds: ChannelCredentials, options?: object): C;
  service: ServiceDefinition;
}

export interface ServiceClientOptions {
  /** Deadline of a unary call that sets none (default 5 s). Streaming calls get none. */
  defaultDeadlineMs?: number;
  /** Attempts per call when the server is UNAVAILABLE, first one included (2–5, default 4). */
  maxAttempts?: number;
  /** First retry delay; each next one doubles, with jitter, up to maxBackoffMs. */
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  /**
   * The identity the server's certificate must prove; by default the service's own
   * (`atelier.jobs.v1.JobsService` → jobs). For a process that serves several services' APIs.
   */
  serverName?: string;
}

function serviceNameOf(service: ServiceDefinition): string {
  const firstPath = Object.values(service)[0]?.path;
  const match = firstPath ? /^\/([^/]+)\//.exec(firstPath) : null;
  if (!match?.[1]) throw new Error('cannot derive the service name from its definition');
  return match[1];
}

/**
 * Connects to one gRPC service over mutual TLS: presents this process's certificate and accepts
 * only a server whose certificate proves the service's identity (`atelier.jobs.v1.…` → jobs).
 * Unary calls get a default deadline; calls answered UNAVAILABLE
 * (the server is down, restarting, or overloaded) are retried with jittered exponential backoff
 * by grpc-js's own retry policy, within the call's deadline. Other failures are not retried:
 * they are answers, not accidents. Round-robin balancing spreads calls over every address the
 * name resolves to (a headless Kubernetes Service).
 */
export function createServiceClient<C extends Client>(
  ClientCtor: ClientConstructor<C>,
  address: string,
  security: GrpcSecurity,
  options: ServiceClientOptions = {},
): PromiseClient<C> {
  const defaultDeadlineMs = options.defaultDeadlineMs ?? 5_000;
  const serviceName = serviceNameOf(ClientCtor.service);
  const serviceConfig = {
    loadBalancingConfig: [{ round_robin: {} }],
    methodConfig: [
      {
        name: [{ service: serviceName }],
        retryPolicy: {
          maxAttempts: Math.min(5, Math.max(2, options.maxAttempts ?? 4)),
          initialBackoff: `${(options.initialBackoffMs ?? 100) / 1000}s`,
          maxBackoff: `${(options.maxBackoffMs ?? 2_000) / 1000}s`,
          backoffMultiplier: 2,
          retryableStatusCodes: ['UNAVAILABLE'],
        },
      },
    ],
  };
  const serverName = options.serverName ?? serverNameOfService(serviceName);
  const raw = new ClientCtor(address, channelCredentialsOf(security, serverName), {
    ...tlsChannelOptions(serverName),
    'grpc.service_config': JSON.stringify(serviceConfig),
    'grpc.enable_retries': 1,
    'grpc.keepalive_time_ms': 30_000,
    'grpc.keepalive_timeout_ms': 10_000,
    // A peer that was down (a restart, a crash) is found again within two seconds of its return:
    // grpc-js's default reconnect backoff grows to two minutes, answering UNAVAILABLE meanwhile.
    'grpc.initial_reconnect_backoff_ms': 250,
    'grpc.max_reconnect_backoff_ms': 2_000,
    // channelz keeps a per-call trace we never read; it is a measurable share of a call's CPU.
    'grpc.enable_channelz': 0,
  });

  const client: Record<string, unknown> = { raw, close: () => raw.close() };
  for (const [name, method] of Object.entries(ClientCtor.service)) {
    if (method.requestStream || method.responseStream) continue;
    const call = (raw as unknown as Record<string, UnaryMethod<unknown, unknown>>)[name];
    if (!call) continue;
    client[name] = (request: unknown, callOptions: UnaryCallOptions = {}) =>
      new Promise((resolve, reject) => {
        const deadline = Date.now() + (callOptions.deadlineMs ?? defaultDeadlineMs);
        const pending = call.call(raw, request, callOptions.metadata ?? new Metadata(), { deadline }, (error, response) =>
          error ? reject(fromServiceError(error)) : resolve(response),
        );
        callOptions.signal?.addEventListener('abort', () => pending.cancel(), { once: true });
      });
  }
  return client as PromiseClient<C>;
}

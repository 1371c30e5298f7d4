import {
  Metadata,
  status as GrpcStatus,
  type CallOptions,
  type ChannelCredentials,
  type Client,
  type ClientReadableStream,
  type ClientUnaryCall,
  type ClientWritableStream,
  type ServiceDefinition,
  type ServiceError,
} from '@grpc/grpc-js';
import { endClientSpan, startClientSpan } from './client-span.js';
import { clientStreamCall, serverStreamCall, type ServerStreamCall } from './client-streams.js';
import { PeerSessions } from './peer-sessions.js';
import { fromServiceError } from './service-errors.js';
import { channelCredentialsOf, serverNameOfService, tlsChannelOptions, type GrpcSecurity } from './transport-security.js';
import { callUnary, frameOf, isCallFailure, type RetryPolicy } from './unary-call.js';

/**
 * How long a service waits for a peer's answer to a unary call when neither the call nor the
 * client names a deadline. Peers answer from their own database or memory in milliseconds; one that
 * has not answered in three seconds is down or overloaded, and the caller's own answer (UNAVAILABLE,
 * or a retry later) is better than a request held open. Processes that wait on slower work name
 * their own (the gateway's UPSTREAM_DEADLINE_MS, the worker's clients).
 */
export const PEER_DEADLINE_MS = 3_000;

/** Per-call options of a client method. */
export interface ClientCallOptions {
  /** The call's deadline: a unary call's replaces the client's default; a stream has none unless given one. */
  deadlineMs?: number;
  metadata?: Metadata;
  /** Cancels the call: it fails with CANCELLED. */
  signal?: AbortSignal;
}

type Callback<Res> = (error: ServiceError | null, response: Res) => void;

// The last overload of each generated method, by kind (TypeScript matches overloads on the last).
type UnaryMethod<Req, Res> = (request: Req, metadata: Metadata, options: Partial<CallOptions>, callback: Callback<Res>) => ClientUnaryCall;
type ServerStreamingMethod<Req, Res> = (request: Req, metadata?: Metadata, options?: Partial<CallOptions>) => ClientReadableStream<Res>;
type ClientStreamingMethod<Req, Res> = (
  metadata: Metadata,
  options: Partial<CallOptions>,
  callback: Callback<Res>,
) => ClientWritableStream<Req>;

// The streaming kinds are told apart first: a streaming method fits the unary shape too (fewer
// parameters are fine, and its stream is also a ClientUnaryCall).
type PromiseMethod<M> =
  M extends ClientStreamingMethod<infer Req, infer Res>
    ? (requests: Iterable<Req> | AsyncIterable<Req>, options?: ClientCallOptions) => Promise<Res>
    : M extends ServerStreamingMethod<infer Req, infer Res>
      ? (request: Req, options?: ClientCallOptions) => ServerStreamCall<Res>
      : M extends UnaryMethod<infer Req, infer Res>
        ? (request: Req, options?: ClientCallOptions) => Promise<Res>
        : never;

/**
 * A ts-proto grpc-js client whose failures are domain errors (`AppError`, see `@atelier/errors`),
 * the same for every kind of method: a unary method is `(request, options?) => Promise<response>`,
 * a server-streaming one `(request, options?) => ServerStreamCall<response>` (an async iterable),
 * a client-streaming one `(requests, options?) => Promise<response>` sending an (async) iterable.
 */
export type PromiseClient<C> = {
  [K in keyof C as [PromiseMethod<C[K]>] extends [never] ? never : K]: PromiseMethod<C[K]>;
} & {
  /** The underlying grpc-js client. */
  readonly raw: C;
  /** Closes the channel. */
  close(): void;
};

export interface ClientConstructor<C extends Client> {
  new (address: string, creds: ChannelCredentials, options?: object): C;
  service: ServiceDefinition;
}

export interface ServiceClientOptions {
  /** Deadline of a unary call that sets none (default PEER_DEADLINE_MS). Streaming calls get none unless they ask. */
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
 * (the server is down, restarting, or overloaded) are retried with jittered exponential backoff,
 * within the call's deadline. Other failures are not retried: they are answers, not accidents.
 * Round-robin balancing spreads calls over every address the name resolves to (a headless
 * Kubernetes Service). Unary calls travel on HTTP/2 connections of this library's own
 * (`unary-call.ts`, `peer-sessions.ts`); streaming calls on grpc-js's channel, with the same
 * retry policy and balancing.
 */
export function createServiceClient<C extends Client>(
  ClientCtor: ClientConstructor<C>,
  address: string,
  security: GrpcSecurity,
  options: ServiceClientOptions = {},
): PromiseClient<C> {
  const defaultDeadlineMs = options.defaultDeadlineMs ?? PEER_DEADLINE_MS;
  const serviceName = serviceNameOf(ClientCtor.service);
  const retry: RetryPolicy = {
    maxAttempts: Math.min(5, Math.max(2, options.maxAttempts ?? 4)),
    initialBackoffMs: options.initialBackoffMs ?? 100,
    maxBackoffMs: options.maxBackoffMs ?? 2_000,
  };
  const serviceConfig = {
    loadBalancingConfig: [{ round_robin: {} }],
    methodConfig: [
      {
        name: [{ service: serviceName }],
        retryPolicy: {
          maxAttempts: retry.maxAttempts,
          initialBackoff: `${retry.initialBackoffMs / 1000}s`,
          maxBackoff: `${retry.maxBackoffMs / 1000}s`,
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

  // Unary calls, the hot path, go over HTTP/2 sessions of their own: grpc-js's client costs about
  // 0.1 ms of CPU and 0.3 ms of latency more per call (bench/README.md, issue 31). Streams use grpc-js.
  const sessions = new PeerSessions(address, security, serverName);
  const client: Record<string, unknown> = {
    raw,
    close: () => {
      raw.close();
      sessions.close();
    },
  };
  const methods = raw as unknown as Record<string, (...args: unknown[]) => unknown>;
  const streamOptions = ({ deadlineMs }: ClientCallOptions): Partial<CallOptions> =>
    deadlineMs === undefined ? {} : { deadline: Date.now() + deadlineMs };
  for (const [name, method] of Object.entries(ClientCtor.service)) {
    const call = methods[name];
    if (!call || (method.requestStream && method.responseStream)) continue; // no contract has a bidirectional method
    if (method.responseStream) {
      client[name] = (request: unknown, callOptions: ClientCallOptions = {}): ServerStreamCall<unknown> =>
        serverStreamCall(
          call.call(raw, request, callOptions.metadata ?? new Metadata(), streamOptions(callOptions)) as ClientReadableStream<unknown>,
          callOptions.signal,
        );
    } else if (method.requestStream) {
      client[name] = (requests: Iterable<unknown> | AsyncIterable<unknown>, callOptions: ClientCallOptions = {}) =>
        clientStreamCall(
          (callback) =>
            call.call(raw, callOptions.metadata ?? new Metadata(), streamOptions(callOptions), callback) as ClientWritableStream<unknown>,
          requests,
          callOptions.signal,
        );
    } else {
      const { path, requestSerialize, responseDeserialize } = method;
      client[name] = async (request: unknown, callOptions: ClientCallOptions = {}) => {
        const deadlineAt = Date.now() + (callOptions.deadlineMs ?? defaultDeadlineMs);
        const headers = callOptions.metadata?.toHttp2Headers() ?? {};
        const span = startClientSpan(path, headers);
        try {
          const message = await callUnary(
            sessions,
            path,
            frameOf(requestSerialize(request)),
            { deadlineAt, headers, signal: callOptions.signal },
            retry,
          );
          const response = responseDeserialize(message);
          endClientSpan(span, GrpcStatus.OK);
          return response;
        } catch (error) {
          endClientSpan(span, isCallFailure(error) ? error.code : GrpcStatus.INTERNAL, error instanceof Error ? error.message : undefined);
          throw fromServiceError(error);
        }
      };
    }
  }
  return client as PromiseClient<C>;
}

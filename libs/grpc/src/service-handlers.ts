import type {
  Metadata,
  ServerDuplexStream,
  ServerReadableStream,
  ServerUnaryCall,
  ServerWritableStream,
  UntypedHandleCall,
  UntypedServiceImplementation,
  sendUnaryData,
} from '@grpc/grpc-js';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { isAppError } from '@atelier/errors';
import { toStatusObject } from './service-errors.js';

/** What every handler learns about its call. */
export interface CallContext {
  /** e.g. `/atelier.catalog.v1.CatalogService/GetModel`. */
  readonly method: string;
  readonly metadata: Metadata;
  /** Aborts when the client cancels or its deadline passes. */
  readonly signal: AbortSignal;
}

/** The server side of a server-streaming call. */
export interface ServerStream<Res> {
  /** Sends one message; resolves when the transport can take more (backpressure). */
  write(message: Res): Promise<void>;
}

/** The parts of a ts-proto method definition the adapter uses. */
export interface MethodDefinition {
  path: string;
  requestStream: boolean;
  responseStream: boolean;
  requestDeserialize: (buffer: Buffer) => unknown;
  responseSerialize: (value: never) => Buffer;
}

type RequestOf<M> = M extends { requestDeserialize: (buffer: Buffer) => infer R } ? R : never;
type ResponseOf<M> = M extends { responseSerialize: (value: infer R) => Buffer } ? R : never;

/** A promise-returning handler for one method, shaped by its streaming kind. */
export type Handler<M> = M extends { requestStream: false; responseStream: false }
  ? (request: RequestOf<M>, context: CallContext) => Promise<ResponseOf<M>>
  : M extends { requestStream: false; responseStream: true }
    ? (request: RequestOf<M>, stream: ServerStream<ResponseOf<M>>, context: CallContext) => Promise<void>
    : M extends { requestStream: true; responseStream: false }
      ? (requests: AsyncIterable<RequestOf<M>>, context: CallContext) => Promise<ResponseOf<M>>
      : never;

/** Handlers for every method of a ts-proto service definition. */
export type ServiceHandlers<D> = { [K in keyof D]: Handler<D[K]> };

export interface CallLogger {
  debug(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

type AnyCall =
  | ServerUnaryCall<unknown, unknown>
  | ServerReadableStream<unknown, unknown>
  | ServerWritableStream<unknown, unknown>
  | ServerDuplexStream<unknown, unknown>;

/**
 * The handler's context. `answered()` says when a unary call's answer is decided: grpc-js emits
 * 'cancelled' when a call's stream closes, after every answer as well, and aborting then (an Error
 * built, an event dispatched, for a signal nobody listens to any more) was a measurable part of a
 * short call's CPU. Streaming calls are aborted whenever their stream closes, as before: a
 * client-streaming handler may have returned on the end of a stream the client cut short.
 */
function contextOf(method: string, call: AnyCall): CallContext & { answered?: boolean } {
  const controller = new AbortController();
  const context: CallContext & { answered?: boolean } = { method, metadata: call.metadata, signal: controller.signal };
  (call as NodeJS.EventEmitter).once('cancelled', () => {
    if (!context.answered) controller.abort(new Error('call cancelled by the client'));
  });
  return context;
}

/**
 * The server-side interceptor: turns promise handlers into grpc-js handlers, answers a domain
 * error with its status and trailing details, hides unexpected errors behind INTERNAL (logged
 * with their stack), and logs every failed call once.
 */
export function adaptService<D extends Record<string, MethodDefinition>>(
  definition: D,
  handlers: ServiceHandlers<D>,
  logger: CallLogger,
): UntypedServiceImplementation {
  const implementation: UntypedServiceImplementation = {};
  for (const [name, method] of Object.entries(definition)) {
    const handler = (handlers as Record<string, (...args: never[]) => Promise<unknown>>)[name];
    if (!handler) throw new Error(`no handler for ${method.path}`);
    implementation[name] = adaptMethod(method, handler as (...args: unknown[]) => Promise<unknown>, logger);
  }
  return implementation;
}

function logFailure(logger: CallLogger, method: string, startedAt: number, error: unknown) {
  const durationMs = Date.now() - startedAt;
  if (isAppError(error)) {
    logger.info({ method, durationMs, code: error.code, reason: error.reason, field: error.field }, 'rpc refused');
  } else {
    logger.error({ method, durationMs, err: error }, 'rpc failed unexpectedly');
  }
}

function adaptMethod(method: MethodDefinition, handler: (...args: unknown[]) => Promise<unknown>, logger: CallLogger): UntypedHandleCall {
  const path = method.path;
  if (!method.requestStream && !method.responseStream) {
    return (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => {
      const startedAt = Date.now();
      const context = contextOf(path, call);
      Promise.resolve()
        .then(() => handler(call.request, context))
        .then(
          (response) => {
            context.answered = true;
            callback(null, response);
          },
          (error: unknown) => {
            context.answered = true;
            logFailure(logger, path, startedAt, error);
            callback(toStatusObject(error));
          },
        );
    };
  }
  if (!method.requestStream && method.responseStream) {
    return (call: ServerWritableStream<unknown, unknown>) => {
      const startedAt = Date.now();
      const stream: ServerStream<unknown> = {
        write: (message) =>
          new Promise<void>((resolve) => {
            if (call.cancelled || call.destroyed) return resolve();
            if (call.write(message)) resolve();
            else call.once('drain', () => resolve());
          }),
      };
      Promise.resolve()
        .then(() => handler(call.request, stream, contextOf(path, call)))
        .then(
          () => call.end(),
          (error: unknown) => {
            if (call.cancelled) return;
            logFailure(logger, path, startedAt, error);
            call.emit('error', toStatusObject(error));
          },
        );
    };
  }
  if (method.requestStream && !method.responseStream) {
    return (call: ServerReadableStream<unknown, unknown>, callback: sendUnaryData<unknown>) => {
      const startedAt = Date.now();
      Promise.resolve()
        .then(() => handler(call as AsyncIterable<unknown>, contextOf(path, call)))
        .then(
          (response) => callback(null, response),
          (error: unknown) => {
            logFailure(logger, path, startedAt, error);
            callback(toStatusObject(error));
          },
        );
    };
  }
  return (call: ServerDuplexStream<unknown, unknown>) => {
    call.emit('error', { code: GrpcStatus.UNIMPLEMENTED, details: 'bidirectional streaming is not supported' });
  };
}

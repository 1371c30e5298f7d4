import {
  status as GrpcStatus,
  type ServerWritableStream,
  type ServiceDefinition,
  type UntypedHandleCall,
  type UntypedServiceImplementation,
  type sendUnaryData,
} from '@grpc/grpc-js';

/** Told of every finished call: full method path, status name (`OK`, `NOT_FOUND` …), seconds. */
export type CallObserver = (method: string, code: string, seconds: number) => void;

const STATUS_NAMES = Object.fromEntries(Object.entries(GrpcStatus).map(([name, code]) => [code, name])) as Record<number, string>;
const statusName = (code: number | undefined) => STATUS_NAMES[code ?? GrpcStatus.UNKNOWN] ?? 'UNKNOWN';
const secondsSince = (startedAt: bigint) => Number(process.hrtime.bigint() - startedAt) / 1e9;

/**
 * Wraps a service's handlers so that each call's outcome and duration reach the observer: unary
 * and client-streaming calls when they answer, server streams when they end or fail (a stream
 * the client cancels is not counted: it has no outcome of its own).
 */
export function observeCalls(
  definition: ServiceDefinition,
  implementation: UntypedServiceImplementation,
  observe: CallObserver,
): UntypedServiceImplementation {
  const observed: UntypedServiceImplementation = {};
  for (const [name, method] of Object.entries(definition)) {
    const handle = implementation[name];
    if (!handle) continue;
    const path = method.path;
    if (method.responseStream) {
      observed[name] = ((call: ServerWritableStream<unknown, unknown>) => {
        const startedAt = process.hrtime.bigint();
        // grpc-js ends a stream after an error too: only the first outcome counts.
        let observed = false;
        const once = (code: string) => {
          if (!observed) observe(path, code, secondsSince(startedAt));
          observed = true;
        };
        const end = call.end.bind(call);
        call.end = ((...args: Parameters<typeof call.end>) => {
          once('OK');
          return end(...args);
        }) as typeof call.end;
        const emit = call.emit.bind(call);
        call.emit = ((event: string | symbol, ...args: unknown[]) => {
          if (event === 'error') once(statusName((args[0] as { code?: number } | undefined)?.code));
          return emit(event, ...args);
        }) as typeof call.emit;
        (handle as (call: ServerWritableStream<unknown, unknown>) => void)(call);
      }) as UntypedHandleCall;
    } else {
      observed[name] = ((call: unknown, callback: sendUnaryData<unknown>) => {
        const startedAt = process.hrtime.bigint();
        (handle as (call: unknown, callback: sendUnaryData<unknown>) => void)(call, (error, ...rest) => {
          observe(path, error ? statusName(error.code) : 'OK', secondsSince(startedAt));
          callback(error, ...rest);
        });
      }) as UntypedHandleCall;
    }
  }
  return observed;
}

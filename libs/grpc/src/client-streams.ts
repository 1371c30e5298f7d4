import type { ClientReadableStream, ClientUnaryCall, ClientWritableStream, ServiceError } from '@grpc/grpc-js';
import { fromServiceError } from './service-errors.js';

/**
 * A server-streaming call in progress: iterate it for the responses. It fails as a unary call
 * does, with the server's domain error (`AppError`: UNAVAILABLE when the server went away,
 * NOT_FOUND …), and with CANCELLED once cancelled. Leaving the iteration early ends the call.
 */
export interface ServerStreamCall<Res> extends AsyncIterable<Res> {
  /** Ends the call; safe at any time and more than once. */
  cancel(): void;
}

/** Ties a call (of any kind: ClientUnaryCall is what they share) to the caller's signal: an abort cancels it, and the listener goes when the call ends. */
function cancelOnAbort(call: ClientUnaryCall, signal: AbortSignal | undefined): void {
  if (!signal) return;
  const cancel = () => call.cancel();
  if (signal.aborted) return cancel();
  signal.addEventListener('abort', cancel, { once: true });
  call.once('status', () => signal.removeEventListener('abort', cancel));
}

/** A grpc-js server stream as a ServerStreamCall. */
export function serverStreamCall<Res>(call: ClientReadableStream<Res>, signal?: AbortSignal): ServerStreamCall<Res> {
  // grpc-js ends the stream, then emits the failure: one that comes before anyone iterates would
  // be an unhandled 'error' event (a crash) and the later iteration would end as if all went well.
  let failure: unknown;
  call.on('error', (error: unknown) => (failure ??= error));
  cancelOnAbort(call, signal);
  return {
    cancel: () => call.cancel(),
    async *[Symbol.asyncIterator]() {
      try {
        for await (const message of call) yield message as Res;
      } catch (error) {
        throw fromServiceError(error);
      } finally {
        // A reader that stops early only destroys grpc-js's stream; the call would run on. Once
        // the call has ended, cancelling is a no-op.
        call.cancel();
      }
      if (failure !== undefined) throw fromServiceError(failure);
    },
  };
}

/**
 * Sends every message of `requests` on a grpc-js client stream, waiting for the transport when
 * its buffer is full, then half-closes it; resolves with the answer or rejects with the server's
 * domain error. Sending stops as soon as the server has answered (a refusal before the last
 * message). A `requests` that throws cancels the call and rejects with its own error.
 */
export async function clientStreamCall<Req, Res>(
  open: (callback: (error: ServiceError | null, response?: Res) => void) => ClientWritableStream<Req>,
  requests: Iterable<Req> | AsyncIterable<Req>,
  signal?: AbortSignal,
): Promise<Res> {
  let answered = false;
  let call!: ClientWritableStream<Req>;
  const answer = new Promise<Res>((resolve, reject) => {
    call = open((error, response) => {
      answered = true;
      if (error) reject(fromServiceError(error));
      else resolve(response as Res);
    });
  });
  const settled = answer.then(
    () => undefined,
    () => undefined,
  );
  cancelOnAbort(call, signal);
  try {
    for await (const message of requests) {
      if (answered) break;
      if (!call.write(message)) await Promise.race([new Promise((resolve) => call.once('drain', resolve)), settled]);
    }
  } catch (error) {
    call.cancel();
    throw error;
  }
  if (!answered) call.end();
  return answer;
}

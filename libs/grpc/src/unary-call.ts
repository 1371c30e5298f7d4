import { constants as http2Constants, type ClientHttp2Stream, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http2';
import { setTimeout as sleep } from 'node:timers/promises';
import { Metadata, status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import type { PeerSessions } from './peer-sessions.js';

/** The largest answer a unary call accepts (grpc-js's default receive limit). */
export const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;
// grpc-timeout carries at most eight digits.
const MAX_TIMEOUT_MS = 99_999_999;

/** Which failures a call retries, how often and how long it waits between attempts. */
export interface RetryPolicy {
  /** Attempts, the first included. */
  maxAttempts: number;
  /** The first retry waits up to this long (at random); each next one up to twice the last, to maxBackoffMs. */
  initialBackoffMs: number;
  maxBackoffMs: number;
}

export interface UnaryCallOptions {
  /** When the call (every attempt and wait) must be over, in ms since the epoch. */
  deadlineAt: number;
  /** Headers of the call: the caller's metadata and the trace context, as HTTP/2 headers. */
  headers?: OutgoingHttpHeaders;
  signal?: AbortSignal;
}

/** A call's failure as grpc-js reports one (what fromServiceError reads), and whether another attempt may succeed. */
export type CallFailure = ServiceError & { retryable: boolean };

const STATUS_NAMES = Object.fromEntries(Object.entries(GrpcStatus).map(([name, code]) => [code, name])) as Record<number, string>;

export function callFailure(code: GrpcStatus, details: string, metadata?: Metadata, retryable = false): CallFailure {
  return Object.assign(new Error(`${code} ${STATUS_NAMES[code] ?? 'UNKNOWN'}: ${details}`), {
    code,
    details,
    metadata: metadata ?? new Metadata(),
    retryable,
  });
}

export const isCallFailure = (error: unknown): error is CallFailure =>
  error instanceof Error && typeof (error as Partial<CallFailure>).retryable === 'boolean';

// The status an answer without grpc-status stands for, by its HTTP status (gRPC's HTTP mapping).
const STATUS_BY_HTTP_STATUS: Record<number, GrpcStatus> = {
  400: GrpcStatus.INTERNAL,
  401: GrpcStatus.UNAUTHENTICATED,
  403: GrpcStatus.PERMISSION_DENIED,
  404: GrpcStatus.UNIMPLEMENTED,
  429: GrpcStatus.UNAVAILABLE,
  502: GrpcStatus.UNAVAILABLE,
  503: GrpcStatus.UNAVAILABLE,
  504: GrpcStatus.UNAVAILABLE,
};

// The status of a stream the server reset without one, by the reset's code (as grpc-js maps them).
function statusOfReset(rstCode: number): GrpcStatus {
  switch (rstCode) {
    case http2Constants.NGHTTP2_REFUSED_STREAM:
      return GrpcStatus.UNAVAILABLE;
    case http2Constants.NGHTTP2_CANCEL:
      return GrpcStatus.CANCELLED;
    case http2Constants.NGHTTP2_ENHANCE_YOUR_CALM:
      return GrpcStatus.RESOURCE_EXHAUSTED;
    case http2Constants.NGHTTP2_INADEQUATE_SECURITY:
      return GrpcStatus.PERMISSION_DENIED;
    default:
      return GrpcStatus.INTERNAL;
  }
}

function decodeGrpcMessage(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** The status in a response's trailers (or its headers, for a trailers-only answer). */
function failureOfStatus(headers: IncomingHttpHeaders, messageReceived: boolean): CallFailure | undefined {
  const code = Number(headers['grpc-status']);
  if (code === GrpcStatus.OK) return undefined;
  const raw = headers['grpc-message'];
  const known = Number.isInteger(code) && code > 0 && code <= GrpcStatus.UNAUTHENTICATED;
  return callFailure(
    known ? code : GrpcStatus.UNKNOWN,
    typeof raw === 'string' ? decodeGrpcMessage(raw) : '',
    Metadata.fromHttp2Headers(headers),
    // An answer of UNAVAILABLE is retried, as long as no message came before it.
    code === GrpcStatus.UNAVAILABLE && !messageReceived,
  );
}

// The session's error (a refused connection, a failed handshake) is the stream's cause, when it has one.
const causeOf = (error: Error | undefined): string | undefined => ((error?.cause as Error | undefined) ?? error)?.message;

/** The one message of a unary answer, from its length-prefixed frame. */
function messageOf(body: Buffer): Buffer | CallFailure {
  if (body.length < 5) return callFailure(GrpcStatus.INTERNAL, 'the answer carried no message');
  if (body[0] !== 0) return callFailure(GrpcStatus.INTERNAL, 'the answer is compressed, which this client does not accept');
  if (body.readUInt32BE(1) !== body.length - 5) return callFailure(GrpcStatus.INTERNAL, 'the answer is not exactly one message');
  return body.subarray(5);
}

/** A request message in gRPC's length-prefixed frame (not compressed). */
export function frameOf(message: Uint8Array): Buffer {
  const frame = Buffer.allocUnsafe(5 + message.length);
  frame[0] = 0;
  frame.writeUInt32BE(message.length, 1);
  frame.set(message, 5);
  return frame;
}

/** One attempt: sends the framed request on a new stream, resolves with the answer's message bytes. */
function attempt(sessions: PeerSessions, path: string, frame: Buffer, options: UnaryCallOptions): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const remainingMs = options.deadlineAt - Date.now();
    if (remainingMs <= 0) return reject(callFailure(GrpcStatus.DEADLINE_EXCEEDED, 'deadline exceeded before the call was sent'));
    if (options.signal?.aborted) return reject(callFailure(GrpcStatus.CANCELLED, 'cancelled on client'));
    const headers: OutgoingHttpHeaders = {
      ...options.headers,
      ':method': 'POST',
      ':path': path,
      'content-type': 'application/grpc',
      te: 'trailers',
      'grpc-timeout': `${Math.min(MAX_TIMEOUT_MS, Math.ceil(remainingMs))}m`,
    };
    const unreachable = (error: unknown) =>
      reject(callFailure(GrpcStatus.UNAVAILABLE, error instanceof Error ? error.message : String(error), undefined, true));
    let opened: ClientHttp2Stream | Promise<ClientHttp2Stream>;
    try {
      opened = sessions.request(headers);
    } catch (error) {
      return unreachable(error);
    }
    if (opened instanceof Promise) {
      // The peer's name is being resolved (the client's first call): the deadline runs meanwhile.
      let waiting = true;
      const resolving = setTimeout(() => {
        waiting = false;
        reject(callFailure(GrpcStatus.DEADLINE_EXCEEDED, `deadline exceeded while resolving ${sessions.target}`));
      }, remainingMs);
      opened.then(
        (stream) => {
          clearTimeout(resolving);
          if (waiting) run(stream);
          else stream.close(http2Constants.NGHTTP2_CANCEL);
        },
        (error: unknown) => {
          clearTimeout(resolving);
          if (waiting) unreachable(error);
        },
      );
    } else run(opened);

    function run(stream: ClientHttp2Stream): void {
      let responded = false;
      let status: IncomingHttpHeaders | undefined;
      let settled = false;
      let streamError: Error | undefined;
      const chunks: Buffer[] = [];
      let received = 0;
      const settle = (outcome: Buffer | CallFailure) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        options.signal?.removeEventListener('abort', onAbort);
        if (Buffer.isBuffer(outcome)) resolve(outcome);
        else reject(outcome);
      };
      // Given up on (deadline, cancel, an answer too large): the caller hears at once, the peer by a
      // reset. A stream still waiting for its connection (a peer that accepts the connection and
      // never finishes the handshake) is dropped: Node would hold its reset, and its 'close', until
      // the connection is up.
      const abandon = (failure: CallFailure) => {
        if (settled || status) return;
        settle(failure);
        if (stream.pending) stream.destroy();
        else stream.close(http2Constants.NGHTTP2_CANCEL);
      };
      const deadline = setTimeout(
        () => abandon(callFailure(GrpcStatus.DEADLINE_EXCEEDED, `deadline exceeded after ${Math.ceil(remainingMs)} ms`)),
        // Less any wait for the name's resolution.
        options.deadlineAt - Date.now(),
      );
      const onAbort = () => abandon(callFailure(GrpcStatus.CANCELLED, 'cancelled on client'));
      options.signal?.addEventListener('abort', onAbort, { once: true });

      stream.on('response', (responseHeaders) => {
        responded = true;
        if (responseHeaders['grpc-status'] !== undefined) status = responseHeaders;
        else if (responseHeaders[':status'] !== 200) {
          const httpStatus = Number(responseHeaders[':status']);
          abandon(callFailure(STATUS_BY_HTTP_STATUS[httpStatus] ?? GrpcStatus.UNKNOWN, `the peer answered HTTP ${httpStatus}`));
        }
      });
      stream.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > MAX_RESPONSE_BYTES + 5) {
          abandon(callFailure(GrpcStatus.RESOURCE_EXHAUSTED, `the answer is larger than ${MAX_RESPONSE_BYTES} bytes`));
        } else chunks.push(chunk);
      });
      stream.on('trailers', (trailers) => (status = trailers));
      stream.on('error', (error) => (streamError = error));
      stream.on('close', () => {
        if (settled) return;
        if (status) {
          const message =
            failureOfStatus(status, received > 0) ?? messageOf(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received));
          return settle(message);
        }
        if (!responded) {
          // Nothing came back: the connection failed or closed before the peer answered. The
          // request may or may not have reached it; like grpc-js, the call is retried (every
          // mutating method is idempotent by its key).
          const cause = causeOf(streamError) ?? `stream reset (${stream.rstCode})`;
          return settle(callFailure(GrpcStatus.UNAVAILABLE, `no answer from ${sessions.target}: ${cause}`, undefined, true));
        }
        const code = statusOfReset(stream.rstCode ?? http2Constants.NGHTTP2_INTERNAL_ERROR);
        settle(
          callFailure(
            code,
            `the stream closed without a status (HTTP/2 reset ${stream.rstCode})`,
            undefined,
            code === GrpcStatus.UNAVAILABLE,
          ),
        );
      });
      stream.end(frame);
    }
  });
}

/**
 * A unary call over the peer's connections: its answer's message bytes, or a CallFailure.
 * UNAVAILABLE (no connection, a connection lost before the answer, or the peer's own answer) is
 * retried with jittered exponential backoff, within the call's deadline and attempts; other
 * failures are answers, not accidents, and are not.
 */
export async function callUnary(
  sessions: PeerSessions,
  path: string,
  frame: Buffer,
  options: UnaryCallOptions,
  retry: RetryPolicy,
): Promise<Buffer> {
  for (let attemptNumber = 1; ; attemptNumber += 1) {
    try {
      return await attempt(sessions, path, frame, options);
    } catch (error) {
      const failure = error as CallFailure;
      if (!failure.retryable || attemptNumber >= retry.maxAttempts) throw failure;
      const backoffMs = Math.random() * Math.min(retry.maxBackoffMs, retry.initialBackoffMs * 2 ** (attemptNumber - 1));
      // No time left for another attempt: the failure is the answer.
      if (Date.now() + backoffMs >= options.deadlineAt) throw failure;
      try {
        await sleep(backoffMs, undefined, { signal: options.signal });
      } catch {
        throw callFailure(GrpcStatus.CANCELLED, 'cancelled on client');
      }
    }
  }
}

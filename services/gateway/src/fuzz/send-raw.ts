import { request, type Agent } from 'node:http';
import type { FuzzRequest } from './malformed-requests.js';

/**
 * The most of a body kept: a whole error answer, whose message may echo a URL up to the HTTP
 * parser's 16 KiB (cut short, its JSON would not parse and the answer would read as malformed).
 */
const KEPT_BODY_BYTES = 64 * 1024;

export interface RawAnswer {
  status: number;
  /** The start of the body (an event stream is cut off once its headers are in). */
  body: string;
}

/** A transport error of one request: what happened, and whether it came on a kept-alive connection used before. */
export class TransportError extends Error {
  override name = 'TransportError';
  constructor(
    message: string,
    readonly reusedSocket: boolean,
  ) {
    super(message);
  }
}

/**
 * Sends the request byte for byte as generated (node:http, not fetch: fetch would normalise the
 * path and refuse some methods and bodies). Resolves with the status, or rejects with a
 * TransportError (the server closed the connection, the answer could not be parsed, the timeout passed).
 * `agent` false: a connection of its own.
 */
export function sendRaw(base: URL, agent: Agent | false, fuzz: FuzzRequest, timeoutMs: number): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        host: base.hostname,
        port: base.port,
        method: fuzz.method,
        path: fuzz.url,
        headers: { ...fuzz.headers, ...(fuzz.body ? { 'content-length': String(fuzz.body.length) } : {}) },
        agent,
        timeout: timeoutMs,
      },
      (response) => {
        const status = response.statusCode ?? 0;
        if (String(response.headers['content-type']).startsWith('text/event-stream')) {
          response.destroy();
          resolve({ status, body: '(event stream)' });
          return;
        }
        const chunks: Buffer[] = [];
        let length = 0;
        response.on('data', (chunk: Buffer) => {
          if (length < KEPT_BODY_BYTES) chunks.push(chunk);
          length += chunk.length;
        });
        response.on('end', () => resolve({ status, body: Buffer.concat(chunks).toString('utf8').slice(0, KEPT_BODY_BYTES) }));
        response.on('error', reject);
      },
    );
    outgoing.on('timeout', () => outgoing.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    outgoing.on('error', (error) => reject(new TransportError(error.message, outgoing.reusedSocket)));
    outgoing.end(fuzz.body);
  });
}

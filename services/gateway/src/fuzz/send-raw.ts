import { request, type Agent } from 'node:http';
import type { FuzzRequest } from './malformed-requests.js';

export interface RawAnswer {
  status: number;
  /** The start of the body (an event stream is cut off once its headers are in). */
  body: string;
}

/**
 * Sends the request byte for byte as generated (node:http, not fetch: fetch would normalise the
 * path and refuse some methods and bodies). Resolves with the status, or rejects on a transport
 * error (the server closed the connection, the timeout passed).
 */
export function sendRaw(base: URL, agent: Agent, fuzz: FuzzRequest, timeoutMs: number): Promise<RawAnswer> {
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
          if (length < 4_000) chunks.push(chunk);
          length += chunk.length;
        });
        response.on('end', () => resolve({ status, body: Buffer.concat(chunks).toString('utf8').slice(0, 4_000) }));
        response.on('error', reject);
      },
    );
    outgoing.on('timeout', () => outgoing.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    outgoing.on('error', reject);
    outgoing.end(fuzz.body);
  });
}

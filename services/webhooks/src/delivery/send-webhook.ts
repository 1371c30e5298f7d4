import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { CheckedTarget } from '../ssrf/target-check.js';

/** What came of one POST: the status code (0: no answer) and, without a 2xx, why. */
export interface SendResult {
  statusCode: number;
  error: string | undefined;
  durationMs: number;
}

export interface WebhookMessage {
  target: CheckedTarget;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
}

/** Receivers' answers are read this far (for nothing but to free the socket) and dropped. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * POSTs one webhook to the checked target. The connection goes to target.address whatever DNS says
 * now (a lookup that answers only it), while the Host header and TLS (SNI, the certificate's name)
 * keep the URL's host. Redirects are not followed (a 3xx is a failed attempt): a receiver cannot
 * bounce us to an address the check would refuse. Never throws.
 */
export function sendWebhook(message: WebhookMessage): Promise<SendResult> {
  const { target } = message;
  const started = performance.now();
  const pinned: LookupFunction = (_hostname, options, callback) => {
    if ((options as { all?: boolean }).all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
  const request = target.url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (statusCode: number, error: string | undefined) => {
      if (settled) return;
      settled = true;
      resolve({ statusCode, error, durationMs: Math.max(0, Math.round(performance.now() - started)) });
    };
    const outgoing = request(
      target.url,
      {
        method: 'POST',
        lookup: pinned,
        headers: { 'content-type': 'application/json', 'user-agent': 'Atelier-Webhooks/1', ...message.headers },
        timeout: message.timeoutMs,
        agent: false,
      },
      (response: IncomingMessage) => {
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_RESPONSE_BYTES) response.destroy();
        });
        const status = response.statusCode ?? 0;
        const done = () => finish(status, status >= 200 && status < 300 ? undefined : `the endpoint answered ${status}`);
        response.on('end', done);
        response.on('close', done);
        response.on('error', done);
      },
    );
    outgoing.on('timeout', () => outgoing.destroy(new Error(`no answer within ${message.timeoutMs} ms`)));
    outgoing.on('error', (error) => finish(0, error.message.slice(0, 500)));
    // The whole exchange is bounded too: a receiver that trickles its answer is given up.
    const deadline = setTimeout(() => {
      outgoing.destroy(new Error(`no complete answer within ${message.timeoutMs} ms`));
    }, message.timeoutMs + 1_000);
    deadline.unref();
    outgoing.on('close', () => clearTimeout(deadline));
    outgoing.end(message.body);
  });
}

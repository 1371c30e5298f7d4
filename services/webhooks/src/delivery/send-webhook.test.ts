import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendWebhook } from './send-webhook.js';

let server: Server;
let port: number;
let seen: { host: string | undefined; headers: IncomingHttpHeaders; body: string }[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      seen.push({ host: request.headers.host, headers: request.headers, body: Buffer.concat(chunks).toString() });
      if (request.url === '/slow') return; // never answers
      if (request.url === '/moved') response.writeHead(302, { location: 'http://169.254.169.254/' }).end();
      else response.writeHead(request.url === '/fail' ? 500 : 200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const target = (path: string, host = 'rebinding.example') => ({
  url: new URL(`http://${host}:${port}${path}`),
  address: '127.0.0.1',
  family: 4 as const,
});

describe('send webhook - one POST to the checked address', () => {
  it('connects to the checked address whatever the name resolves to now, keeping the name as Host', async () => {
    seen = [];
    // rebinding.example does not resolve at all: only the pinned address can have been used.
    const result = await sendWebhook({ target: target('/in'), headers: { 'webhook-id': 'd1' }, body: '{"a":1}', timeoutMs: 2_000 });
    expect(result).toMatchObject({ statusCode: 200, error: undefined });
    expect(seen).toEqual([expect.objectContaining({ host: `rebinding.example:${port}`, body: '{"a":1}' })]);
    expect(seen[0]!.headers).toMatchObject({ 'webhook-id': 'd1', 'content-type': 'application/json' });
  });

  it('reports a non-2xx answer, and does not follow a redirect', async () => {
    seen = [];
    expect(await sendWebhook({ target: target('/fail'), headers: {}, body: '{}', timeoutMs: 2_000 })).toMatchObject({
      statusCode: 500,
      error: 'the endpoint answered 500',
    });
    expect(await sendWebhook({ target: target('/moved'), headers: {}, body: '{}', timeoutMs: 2_000 })).toMatchObject({ statusCode: 302 });
    expect(seen).toHaveLength(2);
  });

  it('gives up on a receiver that does not answer in time', async () => {
    const result = await sendWebhook({ target: target('/slow'), headers: {}, body: '{}', timeoutMs: 300 });
    expect(result.statusCode).toBe(0);
    expect(result.error).toMatch(/300 ms/);
    expect(result.durationMs).toBeLessThan(2_000);
  });

  it('reports a refused connection', async () => {
    const result = await sendWebhook({
      target: { url: new URL('http://closed.example:1/'), address: '127.0.0.1', family: 4 },
      headers: {},
      body: '{}',
      timeoutMs: 1_000,
    });
    expect(result).toMatchObject({ statusCode: 0, error: expect.stringMatching(/ECONNREFUSED/) });
  });
});

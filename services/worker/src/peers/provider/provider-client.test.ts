import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobsExecutionV1 } from '@atelier/contracts';
import { ProviderFailure } from './provider-failure.js';
import { HttpProviderClient, predictionFailure } from './provider-client.js';

const { ErrorClass } = jobsExecutionV1;
const MAX_BYTES = 256 * 1024;
const PROMPT = 'my neighbour Jane Doe at 12 Elm Street';
let server: Server;
let base: string;
let streamedBytes = 0;

beforeAll(async () => {
  server = createServer((request, response) => {
    const url = request.url ?? '/';
    if (url === '/small') return void response.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.alloc(1000, 1));
    if (url === '/endless') {
      // No Content-Length: only counting while streaming can stop it.
      response.writeHead(200, { 'content-type': 'image/png' });
      const timer = setInterval(() => {
        streamedBytes += 64 * 1024;
        if (!response.write(Buffer.alloc(64 * 1024, 2))) return;
      }, 1);
      response.on('close', () => clearInterval(timer));
      return;
    }
    if (url === '/declared-huge') return void response.writeHead(200, { 'content-length': String(MAX_BYTES * 10) }).end();
    if (url === '/redirect') return void response.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
    const answered = /^\/(?:v1\/predictions\/p-|outputs\/)status-(\d{3})$/.exec(url);
    if (answered) return void response.writeHead(Number(answered[1]), { 'content-type': 'application/json' }).end('{"error":"as asked"}');
    if (url.startsWith('/v1/predictions/p-echo')) {
      return void response
        .writeHead(422, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: 'bad prediction', input: { prompt: PROMPT, image_url: 'https://b.example/i?X-Amz-Signature=feed' } }));
    }
    if (url === '/v1/predictions') {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        const prompt = (JSON.parse(body) as { input: { prompt: string } }).input.prompt;
        response.writeHead(400, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            error: `cannot read https://bucket.s3.example/assets/a1?X-Amz-Credential=AKIA1234&X-Amz-Signature=abcdef0123 for "${prompt}"`,
            detail: 'x'.repeat(5000),
          }),
        );
      });
      return;
    }
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function client(hosts = [new URL(base).host]) {
  return new HttpProviderClient({ baseUrl: base, apiKey: 'test', output: { hosts, maxBytes: MAX_BYTES } });
}

async function failure(promise: Promise<unknown>): Promise<ProviderFailure> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderFailure);
  return error as ProviderFailure;
}

describe('provider client - vendor outputs fetched safely', () => {
  it('downloads an output from an allowed host', async () => {
    const { bytes } = await client().download(`${base}/small`, AbortSignal.timeout(5_000));
    expect(bytes.length).toBe(1000);
  });

  it('refuses an output on another host as an invalid output that gives the prediction up', async () => {
    for (const url of ['http://169.254.169.254/latest/meta-data/', `http://localhost:${new URL(base).port}/small`, 'file:///etc/passwd']) {
      const refused = await failure(client().download(url, AbortSignal.timeout(5_000)));
      expect(refused).toMatchObject({
        errorClass: ErrorClass.VALIDATION,
        code: 'VALIDATION_OUTPUT_HOST_NOT_ALLOWED',
        abandonsPrediction: true,
      });
      expect(refused.transient).toBe(false);
    }
    // A listed host is allowed even when it is not PROVIDER_URL's.
    expect(
      (await client(['localhost']).download(`http://localhost:${new URL(base).port}/small`, AbortSignal.timeout(5_000))).bytes.length,
    ).toBe(1000);
  });

  it('does not follow a redirect off the allowed hosts', async () => {
    const refused = await failure(client().download(`${base}/redirect`, AbortSignal.timeout(5_000)));
    expect(refused).toMatchObject({ errorClass: ErrorClass.VALIDATION, code: 'VALIDATION_OUTPUT_HOST_NOT_ALLOWED' });
  });

  it('stops an oversize output while it streams, and refuses a declared oversize one before reading', async () => {
    streamedBytes = 0;
    const refused = await failure(client().download(`${base}/endless`, AbortSignal.timeout(10_000)));
    expect(refused).toMatchObject({ errorClass: ErrorClass.VALIDATION, code: 'VALIDATION_OUTPUT_TOO_LARGE', abandonsPrediction: true });
    expect(streamedBytes).toBeLessThan(MAX_BYTES * 20); // stopped early, not at the 10 s timeout
    expect(await failure(client().download(`${base}/declared-huge`, AbortSignal.timeout(5_000)))).toMatchObject({
      code: 'VALIDATION_OUTPUT_TOO_LARGE',
    });
  });
});

describe('provider client - vendor error bodies kept only truncated and redacted', () => {
  it('drops presigned URL queries, credentials and the echoed prompt, and truncates', async () => {
    const refused = await failure(
      client().submit(
        { model: 'm', version: '1', input: { image_url: `${base}/in.png`, prompt: PROMPT } },
        'key-1',
        AbortSignal.timeout(5_000),
      ),
    );
    expect(refused.code).toBe('INTERNAL_PROVIDER_REQUEST_REJECTED');
    expect(refused.message).toContain('POST /v1/predictions answered 400');
    expect(refused.message).toContain('https://bucket.s3.example/assets/a1?[redacted]');
    for (const secret of ['AKIA1234', 'abcdef0123', 'Jane Doe', 'Elm Street']) expect(refused.message).not.toContain(secret);
    expect(refused.message.length).toBeLessThan(700);
  });

  it('redacts the prompt a poll answer echoes', async () => {
    const refused = await failure(client().get('p-echo', AbortSignal.timeout(5_000), [PROMPT]));
    expect(refused.message).toContain('answered 422');
    expect(refused.message).not.toContain('Jane Doe');
    expect(refused.message).not.toContain('feed');
  });

  it("keeps a failed prediction's vendor message only redacted", () => {
    const failed = predictionFailure(
      {
        id: 'p1',
        status: 'failed',
        progress: 0,
        output_url: null,
        output_content_type: null,
        error: { code: 'model_error', message: `could not draw "${PROMPT}" from https://b.example/i?token=abc ${'z'.repeat(900)}` },
        safety: null,
      },
      [PROMPT],
    )!;
    expect(failed.code).toBe('PROVIDER_PREDICTION_FAILED');
    expect(failed.message).toContain('model_error');
    expect(failed.message).not.toContain('Jane Doe');
    expect(failed.message).not.toContain('token=abc');
    expect(failed.message.length).toBeLessThan(600);
  });
});

describe('provider client - what is worth trying again within the attempt', () => {
  const signal = () => AbortSignal.timeout(5_000);

  it.each([
    [408, 'PROVIDER_UNAVAILABLE', true],
    [429, 'PROVIDER_RATE_LIMITED', true],
    [500, 'PROVIDER_UNAVAILABLE', true],
    [503, 'PROVIDER_UNAVAILABLE', true],
    [404, 'PROVIDER_PREDICTION_LOST', false],
    [401, 'CREDENTIAL_INVALID', false],
    [422, 'INTERNAL_PROVIDER_REQUEST_REJECTED', false],
  ])('a poll answered %i is %s, transient: %s', async (status, code, transient) => {
    expect(await failure(client().get(`p-status-${status}`, signal()))).toMatchObject({ code, transient });
  });

  it.each([
    [503, true],
    [429, true],
    [410, false],
  ])('an output download answered %i is transient: %s', async (status, transient) => {
    expect(await failure(client().download(`${base}/outputs/status-${status}`, signal()))).toMatchObject({ transient });
  });

  it('calls a vendor that refuses the connection transient, and a request that cannot be made at all not', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const refused = new HttpProviderClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: 'test', output: { hosts: [], maxBytes: 1 } });
    expect(await failure(refused.get('p-1', signal()))).toMatchObject({ code: 'PROVIDER_UNAVAILABLE', transient: true });
    // Port 1 is one fetch never connects to: no retry makes it work.
    const impossible = new HttpProviderClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'test', output: { hosts: [], maxBytes: 1 } });
    expect(await failure(impossible.get('p-1', signal()))).toMatchObject({ code: 'PROVIDER_UNAVAILABLE', transient: false });
  });
});

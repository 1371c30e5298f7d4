import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listVendorPredictions, type ListedPrediction } from './prediction-list.js';

// The list client against a stand-in vendor that pages by cursor and names its next page on
// another host (its public URL): the client asks its own base URL with that cursor.
const asked: URL[] = [];
let server: Server;
let baseUrl: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    const url = new URL(request.url!, 'http://vendor.invalid');
    asked.push(url);
    if (request.headers.authorization !== 'Bearer platform-key')
      return response.writeHead(401).end('{"error":{"code":"invalid_credentials"}}');
    const second = url.searchParams.get('cursor') === 'page-2';
    const body = second
      ? {
          results: [{ id: 'pred_b', status: 'processing', created_at: '2026-12-03T21:00:01.000Z', idempotency_key: null, metrics: {} }],
          next: null,
        }
      : {
          results: [
            {
              id: 'pred_a',
              status: 'succeeded',
              created_at: '2026-12-03T21:00:00.000Z',
              idempotency_key: '019ae5c1-2f3a-7000-8000-00000000a1b2',
              metrics: { predict_time: 1.2345, images: 1 },
            },
          ],
          next: 'https://vendor.example/v1/predictions?created_after=x&cursor=page-2',
        };
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

const window = { from: new Date('2026-12-03T20:59:00.000Z'), until: new Date('2026-12-03T21:10:00.000Z') };

describe('worker - the vendor prediction list', () => {
  it('pages through the window with the cursor the vendor gives, on its own base URL, and reads the units', async () => {
    const pages: ListedPrediction[][] = [];
    for await (const page of listVendorPredictions({ baseUrl, apiKey: 'platform-key' }, window, AbortSignal.timeout(5_000)))
      pages.push(page);
    expect(pages).toEqual([
      [
        {
          id: 'pred_a',
          status: 'succeeded',
          createdAt: new Date('2026-12-03T21:00:00.000Z'),
          idempotencyKey: '019ae5c1-2f3a-7000-8000-00000000a1b2',
          predictTimeMs: 1235,
          images: 1,
        },
      ],
      [
        {
          id: 'pred_b',
          status: 'processing',
          createdAt: new Date('2026-12-03T21:00:01.000Z'),
          idempotencyKey: undefined,
          predictTimeMs: undefined,
          images: undefined,
        },
      ],
    ]);
    expect(asked.map((url) => Object.fromEntries(url.searchParams))).toEqual([
      { created_after: window.from.toISOString(), created_before: window.until.toISOString(), limit: '500' },
      { created_after: window.from.toISOString(), created_before: window.until.toISOString(), limit: '500', cursor: 'page-2' },
    ]);
  });

  it('throws on a refusal, naming the status', async () => {
    const pages = listVendorPredictions({ baseUrl, apiKey: 'wrong' }, window, AbortSignal.timeout(5_000));
    await expect(pages.next()).rejects.toThrow(/GET \/v1\/predictions answered 401/);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '@atelier/logging';
import type { PredictionListJson } from './routes/list-predictions.js';
import { buildProviderSim, type ProviderSim } from './server.js';

// GET /v1/predictions: one account's predictions, oldest first, in pages. The inputs point at a
// closed port: the predictions fail fast (input_unreachable) and are listed all the same.
const logger = createLogger({ service: 'provider-sim-test', level: 'silent' });
const PLATFORM = { authorization: 'Bearer platform-key' };
const USER = { authorization: 'Bearer user-key' };
let sim: ProviderSim;
let base: string;

beforeAll(async () => {
  sim = buildProviderSim({ logger, latencyMs: 0, inputTimeoutMs: 200 });
  await sim.app.listen({ port: 0, host: '127.0.0.1' });
  const address = sim.app.server.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});

afterAll(async () => {
  await sim?.app.close();
});

async function create(headers: Record<string, string>, idempotencyKey?: string): Promise<string> {
  const response = await fetch(`${base}/v1/predictions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers, ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}) },
    body: JSON.stringify({ model: 'sim-stylize', input: { image_url: 'http://127.0.0.1:9/input.png' } }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

async function list(query: string, headers: Record<string, string> = PLATFORM) {
  const response = await fetch(`${base}/v1/predictions${query}`, { headers });
  return { status: response.status, body: (await response.json()) as PredictionListJson & { error?: { code: string; message: string } } };
}

describe('provider-sim - GET /v1/predictions', () => {
  it("lists the caller's account only, oldest first, with the Idempotency-Key and a next page until the end", async () => {
    const since = new Date().toISOString();
    const ids = [await create(PLATFORM, 'job-a'), await create(PLATFORM), await create(PLATFORM, 'job-b:1')];
    await create(USER, 'someone-else');

    const first = await list(`?created_after=${since}&limit=2`);
    expect(first.status).toBe(200);
    expect(first.body.results.map((p) => [p.id, p.idempotency_key])).toEqual([
      [ids[0], 'job-a'],
      [ids[1], null],
    ]);
    expect(first.body.results[0]).toMatchObject({ model: 'sim-stylize', created_at: expect.any(String), metrics: expect.any(Object) });
    expect(first.body.results[0]).not.toHaveProperty('input');
    expect(first.body.next).toMatch(/cursor=/);
    expect(new URL(first.body.next!).searchParams.get('created_after')).toBe(since);

    const second = await list(new URL(first.body.next!).search);
    expect(second.body.results.map((p) => p.id)).toEqual([ids[2]]);
    expect(second.body.next).toBeNull();

    const users = await list(`?created_after=${since}`, USER);
    expect(users.body.results.map((p) => p.idempotency_key)).toEqual(['someone-else']);
  });

  it('keeps to the window: created_after included, created_before excluded', async () => {
    const id = await create(PLATFORM, 'window');
    const created = sim.store.get(id)!.createdAt.toISOString();
    expect((await list(`?created_after=${created}&created_before=${created}`)).body.results).toEqual([]);
    expect((await list(`?created_after=${created}`)).body.results.map((p) => p.id)).toEqual([id]);
    expect((await list(`?created_before=${created}`)).body.results.map((p) => p.id)).not.toContain(id);
  });

  it('answers 400 naming the bad parameter, and 401 without a key', async () => {
    for (const [query, field] of [
      ['?created_after=soon', 'created_after'],
      ['?limit=100000', 'limit'],
      ['?cursor=zzz', 'cursor'],
    ] as const) {
      const answer = await list(query);
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(new RegExp(`^${field}:`)) });
    }
    expect((await list('', {})).status).toBe(401);
  });

  it('forgets what it evicted past PROVIDER_SIM_MAX_PREDICTIONS', async () => {
    const small = buildProviderSim({ logger, latencyMs: 0, inputTimeoutMs: 200, maxPredictions: 2 });
    await small.app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const address = small.app.server.address();
      const at = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
      const post = async () => {
        const response = await fetch(`${at}/v1/predictions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...PLATFORM },
          body: JSON.stringify({ model: 'sim-stylize', input: { image_url: 'http://127.0.0.1:9/input.png' } }),
        });
        const { id } = (await response.json()) as { id: string };
        // Evicted only once finished: wait for the input failure.
        await expect.poll(() => small.store.get(id)?.status, { timeout: 5_000 }).toBe('failed');
        return id;
      };
      const [a, b, c] = [await post(), await post(), await post()];
      const listed = (await (await fetch(`${at}/v1/predictions`, { headers: PLATFORM })).json()) as PredictionListJson;
      expect(listed.results.map((p) => p.id)).toEqual([b, c]);
      expect(listed.results.map((p) => p.id)).not.toContain(a);
    } finally {
      await small.app.close();
    }
  });
});

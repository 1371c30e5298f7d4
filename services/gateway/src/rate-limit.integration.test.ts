import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MobileApi, startTestPlatform, waitUntil, type ApiAnswer, type ServiceProcess, type TestPlatform } from '@atelier/testing';
import { testTokenKey } from './test-support/gateway-harness.js';

// Limits end to end: two gateway replicas sharing one rate limit through the JetStream KV bucket,
// a third whose NATS is unreachable (it starts and lets requests through), and the per-user
// limits of media and community as the app sees them (429, a code, Retry-After).
const WINDOW_SECONDS = 3600;
const USER_MAX = 10;
const ADDRESS_MAX = 6;

let platform: TestPlatform;
let replicas: MobileApi[];
let sign: (subject: string) => Promise<string>;
let seq = 0;

beforeAll(async () => {
  const tokens = await testTokenKey();
  sign = (subject) => tokens.sign(subject);
  platform = await startTestPlatform({
    env: { UPLOADS_DAILY_LIMIT: '2', POSTS_DAILY_LIMIT: '2' },
    gateway: {
      ...tokens.gatewayEnv,
      RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_SECONDS),
      RATE_LIMIT_USER_MAX: String(USER_MAX),
      RATE_LIMIT_ADDRESS_MAX: String(ADDRESS_MAX),
      // A loaded test machine must not turn a slow KV answer into a request let through.
      RATE_LIMIT_STORE_TIMEOUT_MS: '5000',
    },
  });
  const second = await platform.startGateway();
  replicas = [platform.gatewayUrl!, `http://${second.address}`].map((url) => new MobileApi(url, ''));
  // Ready means the peers answer; the shared counters may come a moment later (until then requests go unchecked).
  for (const url of [platform.gatewayUrl!, `http://${second.address}`]) {
    await waitUntil(async () => /^atelier_gateway_rate_limit_store_up(\{[^}]*\})? 1$/m.test(await (await fetch(`${url}/metrics`)).text()), {
      timeoutMs: 30_000,
    });
  }
  // The windows are fixed (aligned on the epoch): do not straddle the end of one.
  const left = WINDOW_SECONDS * 1000 - (Date.now() % (WINDOW_SECONDS * 1000));
  if (left < 60_000) await new Promise((resolve) => setTimeout(resolve, left + 1_000));
}, 240_000);

afterAll(async () => {
  await platform?.stop();
});

async function newUser(): Promise<string> {
  return sign(`limits-${process.pid}-${++seq}`);
}

type ErrorBody = { error: { code: number; name: string; message: string; requestId: string } };

function expectLimited(answer: ApiAnswer, code: number, name: string, maxRetryAfter: number): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(429);
  expect((answer.body as unknown as ErrorBody).error).toMatchObject({ code, name, requestId: answer.headers.get('x-request-id') });
  const retryAfter = Number(answer.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(maxRetryAfter);
}

const secondsLeftInWindow = () => Math.ceil((WINDOW_SECONDS * 1000 - (Date.now() % (WINDOW_SECONDS * 1000))) / 1000);

describe('gateway rate limit - shared by every replica', () => {
  it('admits a user exactly the limit per window across two gateways, then 429 RATE_LIMITED with Retry-After', async () => {
    const token = await newUser();
    const answers: ApiAnswer[] = [];
    // Pairs at once, one to each replica: both reserve from the same counter.
    for (let i = 0; i < 12; i += 1) {
      answers.push(...(await Promise.all(replicas.map((api) => api.call('GET', '/api/v1/creation/catalog?mediaKind=image', { token })))));
    }
    const admitted = answers.filter((a) => a.status === 200);
    expect(admitted).toHaveLength(USER_MAX);
    const refused = answers.filter((a) => a.status !== 200);
    expect(refused).toHaveLength(24 - USER_MAX);
    for (const answer of refused) expectLimited(answer, 42920, 'RATE_LIMITED', secondsLeftInWindow() + 1);
    expect((refused[0]!.body as unknown as ErrorBody).error.message).toMatch(/too many requests from this account/);

    // Another user on the same address is not affected; probes never are.
    expect((await replicas[1]!.call('GET', '/api/v1/creation/catalog?mediaKind=image', { token: await newUser() })).status).toBe(200);
    for (const api of replicas) expect((await api.call('GET', '/readyz', { token })).status).toBe(200);
  });

  it('limits requests without a valid token per client address, on public and API routes alike', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i += 1) {
      statuses.push((await replicas[i % 2]!.call('GET', '/openapi.json', { token: null })).status);
      statuses.push((await replicas[(i + 1) % 2]!.call('GET', '/api/v1/feed', { token: 'not-a-jwt' })).status);
    }
    // Six requests admitted (200 for the document, 401 for the bad token), then 429 for both kinds.
    expect(statuses).toEqual([200, 401, 200, 401, 200, 401, 429, 429]);
    const limited = await replicas[0]!.call('GET', '/api/v1/feed', { token: null });
    expectLimited(limited, 42920, 'RATE_LIMITED', secondsLeftInWindow() + 1);
    expect((limited.body as unknown as ErrorBody).error.message).toMatch(/too many requests from this address/);
    // A verified user on that address is counted per subject, not refused with the address.
    expect((await replicas[0]!.call('GET', '/api/v1/feed', { token: await newUser() })).status).toBe(200);
  });
});

describe('gateway rate limit - NATS unreachable', () => {
  let lonely: ServiceProcess | undefined;
  afterAll(async () => {
    await lonely?.stop();
  });

  it('starts, serves and lets requests through unchecked, counting them in a metric', async () => {
    lonely = await platform.startGateway({ NATS_URL: 'nats://127.0.0.1:1' });
    const api = new MobileApi(`http://${lonely.address}`, await newUser());
    for (let i = 0; i < USER_MAX + 5; i += 1) expect((await api.call('GET', '/api/v1/creation/catalog?mediaKind=image')).status).toBe(200);
    const metrics = await (await fetch(`http://${lonely.address}/metrics`)).text();
    const failOpen = /atelier_gateway_rate_limit_fail_open_total\{[^}]*reason="store_down"[^}]*\} (\d+)/.exec(metrics);
    expect(Number(failOpen?.[1])).toBeGreaterThanOrEqual(USER_MAX + 5);
    expect(metrics).toMatch(/^atelier_gateway_rate_limit_store_up(\{[^}]*\})? 0$/m);
  });
});

describe('per-user limits through the API', () => {
  it('answers uploads past the daily limit 429 UPLOAD_QUOTA_EXCEEDED with the seconds to midnight', async () => {
    const api = replicas[0]!.as(await newUser());
    const start = () =>
      api.call('POST', '/api/v1/media/uploads', { body: { purpose: 'ai_input', contentType: 'image/png', sizeBytes: 1000 } });
    expect((await start()).status).toBe(201);
    expect((await start()).status).toBe(201);
    const refused = await start();
    const now = new Date();
    const toMidnight = Math.ceil((Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1) - now.getTime()) / 1000);
    expectLimited(refused, 42910, 'UPLOAD_QUOTA_EXCEEDED', toMidnight + 1);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(toMidnight - 60);
    expect((refused.body as unknown as ErrorBody).error.message).toMatch(/daily limit of 2 uploads/);
  });

  it('answers posts past the daily limit 429 POST_QUOTA_EXCEEDED with Retry-After', async () => {
    const api = replicas[1]!.as(await newUser());
    const post = (key: string) =>
      api.call('POST', '/api/v1/posts', {
        headers: { 'idempotency-key': key },
        body: { category: 'general', title: 'My cat', content: 'again' },
      });
    expect((await post('a')).status).toBe(201);
    expect((await post('b')).status).toBe(201);
    const refused = await post('c');
    expectLimited(refused, 42912, 'POST_QUOTA_EXCEEDED', 86_400);
    expect((await post('a')).status).toBe(200);
  });
});

import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MobileApi, freePort, startTestPlatform, waitUntil, type ApiAnswer, type TestPlatform } from '@atelier/testing';
import { readMetric, startExtraGateway, testTokenKey } from './test-support/gateway-harness.js';

// Issue 14 at the edge, against the real platform: strict tokens, streams that cannot be
// abused, and inputs that must be refused with a 400 naming the field instead of reaching a
// service (or Postgres) and coming back as a 500. No worker runs: jobs stay queued, so their
// event streams stay open for as long as a test wants.
const MAX_STREAMS = 2;
let platform: TestPlatform;
let key: Awaited<ReturnType<typeof testTokenKey>>;
let api: MobileApi;
let jobId: string;
const nowSeconds = () => Math.floor(Date.now() / 1000);

beforeAll(async () => {
  key = await testTokenKey();
  platform = await startTestPlatform({
    // No queued job followed (its WatchJob would count in the gauge the stream tests read): the
    // job below stays queued, with no worker.
    gateway: { ...key.gatewayEnv, SSE_KEEPALIVE_MS: '200', SSE_MAX_STREAMS_PER_USER: String(MAX_STREAMS), QUEUED_VIEW_FRESH_MS: '0' },
  });
  api = new MobileApi(platform.gatewayUrl!, await key.sign(`hardening-${process.pid}`));
  const created = await api.createJob(await api.stylizeBody(await api.uploadPhoto()), 'hardening-job');
  expect(created.status).toBe(201);
  jobId = created.body.job.id;
}, 180_000);

afterAll(async () => {
  await platform?.stop();
});

type ErrorBody = { error: { code: number; name: string; message: string; requestId: string } };
function expectError(answer: ApiAnswer, status: number, code: number): ErrorBody['error'] {
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  const { error } = answer.body as unknown as ErrorBody;
  expect(error).toMatchObject({ code, requestId: answer.headers.get('x-request-id') });
  return error;
}

/** Opens the job's event stream; resolves once the headers are in. */
async function openStream(token: string, signal: AbortSignal, id = jobId): Promise<Response> {
  return fetch(`${platform.gatewayUrl}/api/v1/creation/jobs/${id}/events`, { headers: { authorization: `Bearer ${token}` }, signal });
}

describe('strict tokens', () => {
  it('refuses a token without exp (401/40103) and one expired beyond the tolerance (401/40102), naming why', async () => {
    const noExp = await api.call('GET', '/api/v1/feed', { token: await key.sign('tok-user', { exp: null }) });
    expect(expectError(noExp, 401, 40103).message).toMatch(/exp/);
    const expired = await api.call('GET', '/api/v1/feed', { token: await key.sign('tok-user', { exp: nowSeconds() - 45 }) });
    expect(expectError(expired, 401, 40102).message).toMatch(/expired/);
    const otherIssuer = await api.call('GET', '/api/v1/feed', { token: await key.sign('tok-user', { issuer: 'someone-else' }) });
    expectError(otherIssuer, 401, 40101);
  });

  it('accepts a token expired 5 s ago and one valid only from 5 s in the future (default tolerance 30 s)', async () => {
    expect((await api.call('GET', '/api/v1/feed', { token: await key.sign('tok-user', { exp: nowSeconds() - 5 }) })).status).toBe(200);
    const early = await key.sign('tok-user', { nbf: nowSeconds() + 5 });
    expect((await api.call('GET', '/api/v1/feed', { token: early })).status).toBe(200);
  });

  it('refuses to start without JWT_ISSUER or JWT_AUDIENCE, naming the variable', async () => {
    const { JWT_ISSUER: _issuer, ...withoutIssuer } = key.gatewayEnv;
    await expect(startExtraGateway(platform, withoutIssuer)).rejects.toThrow(/exited \(78\)[\s\S]*JWT_ISSUER is required/);
    const { JWT_AUDIENCE: _audience, ...withoutAudience } = key.gatewayEnv;
    await expect(startExtraGateway(platform, withoutAudience)).rejects.toThrow(/exited \(78\)[\s\S]*JWT_AUDIENCE is required/);
  });

  it('answers 503/50300 with Retry-After, not 401, while the JWKS cannot be reached', async () => {
    const { JWT_PUBLIC_KEY: _key, ...trust } = key.gatewayEnv;
    const jwksUrl = `http://127.0.0.1:${await freePort()}/jwks.json`;
    const gateway = await startExtraGateway(platform, { ...trust, JWKS_URL: jwksUrl });
    try {
      const answer = await api.call('GET', '/api/v1/feed');
      const response = await fetch(`http://${gateway.address}/api/v1/feed`, { headers: { authorization: `Bearer ${api.token}` } });
      const body = (await response.json()) as ErrorBody;
      expect(answer.status).toBe(200); // the platform's own gateway, with its key, is fine
      expect(response.status, JSON.stringify(body)).toBe(503);
      expect(body.error.code).toBe(50300);
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(JSON.stringify(body)).not.toMatch(/127\.0\.0\.1|jwks|ECONNREFUSED/i);
      // A token that is not even a JWT is still the client's mistake.
      const garbage = await fetch(`http://${gateway.address}/api/v1/feed`, { headers: { authorization: 'Bearer garbage' } });
      expect(garbage.status).toBe(401);
    } finally {
      await gateway.stop();
    }
  });

  it("ends a job's event stream with an error event (40102) when its token expires", async () => {
    // Expired 25 s ago: still honoured for 5 s by the 30 s tolerance, so the stream opens.
    const shortLived = await key.sign(`hardening-${process.pid}`, { exp: nowSeconds() - 25 });
    const started = Date.now();
    const response = await openStream(shortLived, AbortSignal.timeout(20_000));
    expect(response.status).toBe(200);
    const text = await response.text();
    const error = /event: error\ndata: (.*)\n/.exec(text);
    expect(error, text).not.toBeNull();
    expect(JSON.parse(error![1]!)).toMatchObject({ code: 40102, name: 'TOKEN_EXPIRED' });
    expect(Date.now() - started).toBeLessThan(12_000);
  });
});

describe('streams that cannot be abused', () => {
  it(`lets a user hold ${MAX_STREAMS} live streams; the next is 429/42901 with Retry-After, and closing one frees a slot`, async () => {
    const held = [new AbortController(), new AbortController()];
    try {
      for (const controller of held) expect((await openStream(api.token, controller.signal)).status).toBe(200);
      const refused = await openStream(api.token, AbortSignal.timeout(5_000));
      const body = (await refused.json()) as ErrorBody;
      expect(refused.status).toBe(429);
      expect(body.error).toMatchObject({ code: 42901, name: 'TOO_MANY_STREAMS' });
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      // Another user is not affected by this one's streams.
      const other = new MobileApi(api.baseUrl, await key.sign('stream-other'));
      expect((await other.call('GET', `/api/v1/creation/jobs/${jobId}/events`)).status).toBe(404);
      held[0]!.abort();
      await waitUntil(async () => {
        const again = new AbortController();
        const status = (await openStream(api.token, again.signal)).status;
        again.abort();
        return status === 200;
      });
    } finally {
      for (const controller of held) controller.abort();
    }
  });

  it('300 connections aborted right after connecting leave no WatchJob stream open at the jobs service', async () => {
    // A gateway with a ceiling high enough that every connection gets as far as it can.
    const gateway = await startExtraGateway(platform, { ...key.gatewayEnv, SSE_MAX_STREAMS_PER_USER: '1000' });
    const jobsMetrics = platform.jobs.metricsPort!;
    const url = `http://${gateway.address}/api/v1/creation/jobs/${jobId}/events`;
    try {
      await waitUntil(async () => (await readMetric(jobsMetrics, 'atelier_jobs_watch_streams_open')) === 0, { what: 'no open streams' });
      // The gauge sees a live stream (so a ghost would show).
      const live = new AbortController();
      const response = await fetch(url, { headers: { authorization: `Bearer ${api.token}` }, signal: live.signal });
      expect(response.status).toBe(200);
      await waitUntil(async () => (await readMetric(jobsMetrics, 'atelier_jobs_watch_streams_open')) === 1, { what: 'one open stream' });
      live.abort();

      // Aborts spread from "at once" to "a few ms in": during authentication, during the job
      // lookup, just after the stream opened.
      for (let batch = 0; batch < 6; batch += 1) {
        await Promise.all(
          Array.from({ length: 50 }, async (_, i) => {
            const controller = new AbortController();
            const request = fetch(url, { headers: { authorization: `Bearer ${api.token}` }, signal: controller.signal });
            setTimeout(() => controller.abort(), i % 10);
            await request.catch(() => undefined);
          }),
        );
      }
      await waitUntil(async () => (await readMetric(jobsMetrics, 'atelier_jobs_watch_streams_open')) === 0, {
        what: 'every WatchJob stream closed',
        timeoutMs: 5_000,
      });
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(await readMetric(jobsMetrics, 'atelier_jobs_watch_streams_open')).toBe(0);
    } finally {
      await gateway.stop();
    }
  });
});

describe('edges: 400 naming the field, never a 500', () => {
  const postId = '019a0000-0000-7000-8000-0000000000aa';
  const pagedRoutes = ['/api/v1/feed', '/api/v1/me/posts', '/api/v1/creation/jobs', '/admin-api/jobs', '/admin-api/outbox/dead'];

  it.each(
    pagedRoutes.flatMap((route) => ['Infinity', '-Infinity', '1e400', '2147483648', '9223372036854775808'].map((limit) => [route, limit])),
  )('%s?limit=%s is 400 naming querystring.limit', async (route, limit) => {
    const admin = await key.sign('ops', { roles: ['admin'] });
    const answer = await api.call('GET', `${route}?limit=${limit}`, { token: admin });
    expect(expectError(answer, 400, 40000).message).toContain('querystring.limit');
  });

  const garbage = Buffer.from('{"c":"1","i":"------------------------------------"}').toString('base64url');
  const futureYear = Buffer.from(`{"o":"feed","t":"+275760-09-13T00:00:00Z","i":"${postId}"}`).toString('base64url');
  it.each(
    pagedRoutes.flatMap((route) =>
      ['not-a-cursor', 'eyJ', garbage, futureYear, 'a/b+c=', '9223372036854775808', '\u0000'].map((cursor) => [route, cursor]),
    ),
  )('%s?cursor=%s (garbage or tampered) is 400', async (route, cursor) => {
    const admin = await key.sign('ops', { roles: ['admin'] });
    const answer = await api.call('GET', `${route}?cursor=${encodeURIComponent(cursor)}`, { token: admin });
    expect(expectError(answer, 400, 40000).message).toMatch(/cursor|page_token/);
  });

  it.each([
    ['NUL in a post title', 'POST', '/api/v1/posts', { category: 'general', title: 'a\u0000b' }, 'body.title'],
    ['a bell in post content', 'POST', '/api/v1/posts', { category: 'general', title: 't', content: 'x\u0007' }, 'body.content'],
    ['a lone surrogate in a title', 'POST', '/api/v1/posts', { category: 'general', title: '\ud83d' }, 'body.title'],
    ['NUL in a prompt', 'POST', '/api/v1/creation/jobs', { jobType: 'image.stylize', prompt: 'cat\u0000' }, 'body.prompt'],
    [
      'NUL deep in parameters',
      'POST',
      '/api/v1/creation/jobs',
      { jobType: 'image.stylize', parameters: { a: { b: ['\u0000'] } } },
      'body.parameters.a.b.0',
    ],
    ['NUL in a draft title', 'POST', `/api/v1/creation/jobs/${postId}/draft`, { title: '\u0000' }, 'body.title'],
    [
      'expectedVersion above int64',
      'PATCH',
      `/api/v1/posts/${postId}`,
      { expectedVersion: 9223372036854775808, title: 't' },
      'body.expectedVersion',
    ],
    ['NUL in a changed title', 'PATCH', `/api/v1/posts/${postId}`, { expectedVersion: 1, title: 'x\u0000' }, 'body.title'],
  ])('%s is 400 naming %s', async (_what, method, route, body, field) => {
    const answer = await api.call(method, route, { body, headers: { 'idempotency-key': `edge-${Math.random()}` } });
    expect(expectError(answer, 400, 40000).message).toContain(field);
  });

  it('a JSON number too large for a double (1e400) is 400 naming the field', async () => {
    const response = await fetch(`${api.baseUrl}/api/v1/posts/${postId}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${api.token}`, 'content-type': 'application/json' },
      body: '{"expectedVersion":1e400,"title":"t"}',
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as ErrorBody).error.message).toContain('body.expectedVersion');
  });

  it.each(['2026-12-31T23:59:60Z', '0000-01-01T00:00:00Z'])(
    '/admin-api/jobs?createdAfter=%s (a valid RFC 3339 leap second or year 0) is 400',
    async (at) => {
      const admin = await key.sign('ops', { roles: ['admin'] });
      const answer = await api.call('GET', `/admin-api/jobs?createdAfter=${encodeURIComponent(at)}`, { token: admin });
      expect(expectError(answer, 400, 40000).message).toContain('querystring.createdAfter');
    },
  );

  it('an outbox id above the int64 maximum is 400; the maximum itself is a 404', async () => {
    const admin = await key.sign('ops', { roles: ['admin'] });
    const above = await api.call('POST', '/admin-api/outbox/9223372036854775808/replay', { token: admin });
    expect(expectError(above, 400, 40000).message).toContain('params.id');
    expectError(await api.call('POST', '/admin-api/outbox/9223372036854775807/replay', { token: admin }), 404, 40408);
  });

  it('a 503 carries Retry-After and no address, port, hostname or stack', async () => {
    await platform.community!.stop();
    try {
      const answer = await api.call('GET', '/api/v1/feed');
      const error = expectError(answer, 503, 50300);
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(Object.keys(answer.body)).toEqual(['error']);
      expect(Object.keys(error).sort()).toEqual(['code', 'message', 'name', 'requestId']);
      expect(error.message).not.toMatch(/\d+\.\d+\.\d+\.\d+|localhost|:\d{2,5}\b|ECONNREFUSED|connection|\n\s+at /i);
    } finally {
      await platform.restart('community');
    }
  });

  it("docs/api.md's error body example is what the gateway really answers", async () => {
    const apiDoc = readFileSync(new URL('../../../docs/api.md', import.meta.url), 'utf8');
    const example = /an error body is[^\n]*\n\n```json\n([\s\S]*?)```/.exec(apiDoc);
    expect(example, 'docs/api.md shows an error body').not.toBeNull();
    const documented = JSON.parse(example![1]!) as ErrorBody;
    const answer = await api.call('POST', '/api/v1/posts', {
      body: { category: 'general', title: 'a\u0000b' },
      headers: { 'idempotency-key': 'readme-example' },
    });
    expect(answer.status).toBe(400);
    const real = answer.body as unknown as ErrorBody;
    expect({ ...real.error, requestId: documented.error.requestId }).toEqual(documented.error);
    expect(Object.keys(real)).toEqual(Object.keys(documented));
  });
});

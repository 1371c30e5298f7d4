import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeImage } from '@atelier/images';
import { createLogger } from '@atelier/logging';
import { freePort, startProcess } from '@atelier/testing';
import type { PredictionJson } from './routes/prediction-view.js';
import { buildProviderSim, type ProviderSim, type ProviderSimOptions } from './server.js';
import { meanDifference, patternPng } from './test-support/test-images.js';
import { STYLES } from './domain/transforms.js';

const logger = createLogger({ service: 'provider-sim-test', level: 'silent' });
const AUTH = { authorization: 'Bearer test-key' };
const LATENCY_MS = 150;

// ---------------------------------------------------------------------------------------------
// The input images: a tiny HTTP server standing in for the presigned bucket URLs the worker sends.

let inputServer: Server;
let inputBase: string;
let patternInput: Buffer;
let wideInput: Buffer;

async function startInputServer(): Promise<void> {
  patternInput = await patternPng(160, 120);
  wideInput = await sharp({ create: { width: 5000, height: 40, channels: 3, background: '#3366aa' } })
    .png()
    .toBuffer();
  inputServer = createServer((request, response) => {
    const send = (status: number, type: string, body: Buffer | string) => response.writeHead(status, { 'content-type': type }).end(body);
    if (request.url === '/pattern.png') send(200, 'image/png', patternInput);
    else if (request.url === '/wide.png') send(200, 'image/png', wideInput);
    else if (request.url === '/notes.txt') send(200, 'text/plain', 'not an image at all');
    else if (request.url === '/slow.png') setTimeout(() => send(200, 'image/png', patternInput), 3_000).unref();
    else send(404, 'text/plain', 'no such file');
  });
  await new Promise<void>((resolve) => inputServer.listen(0, '127.0.0.1', resolve));
  const address = inputServer.address();
  inputBase = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
}

// ---------------------------------------------------------------------------------------------
// Simulators: one default instance, and others with their own settings, all on free ports.

const started: ProviderSim[] = [];
let base: string;

async function startSim(options: Partial<ProviderSimOptions> = {}): Promise<{ sim: ProviderSim; base: string }> {
  const instance = buildProviderSim({ logger, latencyMs: LATENCY_MS, ...options });
  started.push(instance);
  await instance.app.listen({ port: 0, host: '127.0.0.1' });
  const address = instance.app.server.address();
  return { sim: instance, base: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` };
}

beforeAll(async () => {
  await startInputServer();
  ({ base } = await startSim());
});

afterAll(async () => {
  await Promise.all(started.map((instance) => instance.app.close()));
  await new Promise((resolve) => inputServer?.close(resolve));
});

// ---------------------------------------------------------------------------------------------
// Client helpers.

interface Answer<T = PredictionJson> {
  status: number;
  body: T;
  headers: Headers;
}

type ErrorBody = { error: { code: string; message: string } };

async function call<T = PredictionJson>(url: string, init: RequestInit = {}): Promise<Answer<T>> {
  const response = await fetch(url, init);
  return { status: response.status, body: (await response.json()) as T, headers: response.headers };
}

function submit<T = PredictionJson>(
  at: string,
  input: Record<string, unknown>,
  options: { key?: string; model?: string; headers?: Record<string, string> } = {},
): Promise<Answer<T>> {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(options.headers ?? AUTH) };
  if (options.key !== undefined) headers['idempotency-key'] = options.key;
  return call<T>(`${at}/v1/predictions`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ model: options.model ?? 'sim-stylize', input: { image_url: `${inputBase}/pattern.png`, ...input } }),
  });
}

const getPrediction = (at: string, id: string) => call(`${at}/v1/predictions/${id}`, { headers: AUTH });
const cancel = (at: string, id: string) => call(`${at}/v1/predictions/${id}/cancel`, { method: 'POST', headers: AUTH });
const stats = (at: string) =>
  call<{ predictions_total: number; by_key: Record<string, { submissions: number; requests: number }> }>(`${at}/v1/stats`);

async function waitFor(at: string, id: string, done: (prediction: PredictionJson) => boolean, timeoutMs = 10_000): Promise<PredictionJson> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { body } = await getPrediction(at, id);
    if (done(body)) return body;
    if (Date.now() > deadline) throw new Error(`prediction ${id} still ${body.status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const TERMINAL = ['succeeded', 'failed', 'canceled'];
const finished = (at: string, id: string) => waitFor(at, id, (prediction) => TERMINAL.includes(prediction.status));

async function output(url: string): Promise<{ status: number; contentType: string | null; bytes: Buffer }> {
  const response = await fetch(url);
  return { status: response.status, contentType: response.headers.get('content-type'), bytes: Buffer.from(await response.arrayBuffer()) };
}

const key = () => randomUUID();

// ---------------------------------------------------------------------------------------------

describe('provider-sim - submit and poll', () => {
  it('creates a prediction that starts, rises in progress and succeeds with a real PNG output', async () => {
    const created = await submit(base, { style: 'healing', prompt: 'a cat #sim-latency=600' }, { key: key() });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ model: 'sim-stylize', version: null, status: 'starting', progress: 0, output_url: null });
    expect(created.body.id).toMatch(/^pred_[0-9a-f]+$/);

    const seen: number[] = [];
    const done = await waitFor(base, created.body.id, (prediction) => {
      if (prediction.status === 'processing') seen.push(prediction.progress);
      return prediction.status === 'succeeded';
    });
    expect(seen.some((progress) => progress > 0 && progress < 100)).toBe(true);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(Math.max(...seen)).toBeLessThanOrEqual(99);
    expect(done).toMatchObject({
      status: 'succeeded',
      progress: 100,
      output_url: `${base}/v1/predictions/${created.body.id}/output`,
      output_content_type: 'image/png',
      error: null,
      safety: { flagged: false },
    });
    // Wall-clock stamps may round a millisecond either way around the 600 ms timer.
    expect(Date.parse(done.completed_at!) - Date.parse(done.started_at!)).toBeGreaterThanOrEqual(590);
    expect(done.metrics.predict_time_ms).toBeGreaterThanOrEqual(590);

    const result = await output(done.output_url!);
    expect(result.status).toBe(200);
    expect(result.contentType).toBe('image/png');
    expect(probeImage(result.bytes)).toEqual({ contentType: 'image/png', width: 160, height: 120 });
    expect(result.bytes.equals(patternInput)).toBe(false);
    expect(await meanDifference(result.bytes, patternInput)).toBeGreaterThan(10);
  });

  it('answers a repeated Idempotency-Key with the same prediction (200) and charges once', async () => {
    const idempotencyKey = key();
    const first = await submit(base, { style: 'comic' }, { key: idempotencyKey });
    const replay = await submit(base, { style: 'comic' }, { key: idempotencyKey });
    expect([first.status, replay.status]).toEqual([201, 200]);
    expect(replay.body.id).toBe(first.body.id);
    expect((await stats(base)).body.by_key[idempotencyKey]).toEqual({ submissions: 1, requests: 2 });

    await finished(base, first.body.id);
    const late = await submit(base, { style: '3d' }, { key: idempotencyKey });
    expect(late).toMatchObject({ status: 200, body: { id: first.body.id, status: 'succeeded' } });
    expect((await stats(base)).body.by_key[idempotencyKey]).toEqual({ submissions: 1, requests: 3 });
  });

  it('counts POSTs without an Idempotency-Key under "(none)", each one charged', async () => {
    const before = (await stats(base)).body;
    const none = before.by_key['(none)'] ?? { submissions: 0, requests: 0 };
    const [a, b] = await Promise.all([submit(base, {}), submit(base, {})]);
    expect(a.body.id).not.toBe(b.body.id);
    expect(a.body.idempotency_key).toBeNull();
    const after = (await stats(base)).body;
    expect(after.by_key['(none)']).toEqual({ submissions: none.submissions + 2, requests: none.requests + 2 });
    expect(after.predictions_total).toBe(before.predictions_total + 2);
  });

  it('answers /healthz', async () => {
    expect(await call(`${base}/healthz`)).toMatchObject({ status: 200, body: { status: 'ok' } });
  });
});

describe('provider-sim - transforms over HTTP', () => {
  it('gives every style an output that differs from the input and from the other styles', async () => {
    const created = await Promise.all(STYLES.map((style) => submit(base, { style })));
    const outputs = await Promise.all(
      created.map(async ({ body }) => {
        const done = await finished(base, body.id);
        expect(done.status).toBe('succeeded');
        return (await output(done.output_url!)).bytes;
      }),
    );
    for (const [i, bytes] of outputs.entries()) {
      expect(probeImage(bytes)).toMatchObject({ contentType: 'image/png', width: 160, height: 120 });
      expect(await meanDifference(bytes, patternInput), STYLES[i]).toBeGreaterThan(10);
      for (const [j, other] of outputs.entries()) {
        if (j > i) expect(await meanDifference(bytes, other), `${STYLES[i]} vs ${STYLES[j]}`).toBeGreaterThan(10);
      }
    }
  });

  it('sim-upscale doubles width and height by default and quadruples them with scale 4', async () => {
    const [double, quadruple] = await Promise.all([
      submit(base, {}, { model: 'sim-upscale' }),
      submit(base, { scale: 4 }, { model: 'sim-upscale' }),
    ]);
    const sizes = await Promise.all(
      [double, quadruple].map(async ({ body }) => probeImage((await output((await finished(base, body.id)).output_url!)).bytes)),
    );
    expect(sizes).toEqual([
      { contentType: 'image/png', width: 320, height: 240 },
      { contentType: 'image/png', width: 640, height: 480 },
    ]);
  });

  it('sim-upscale keeps both sides within 8192 px, keeping the aspect ratio', async () => {
    const created = await submit(base, { image_url: `${inputBase}/wide.png` }, { model: 'sim-upscale' });
    const done = await finished(base, created.body.id);
    expect(probeImage((await output(done.output_url!)).bytes)).toEqual({ contentType: 'image/png', width: 8192, height: 66 });
  });

  it('renders at width/height when given', async () => {
    const created = await submit(base, { style: 'watercolor', width: 96, height: 200 });
    const done = await finished(base, created.body.id);
    expect(probeImage((await output(done.output_url!)).bytes)).toMatchObject({ width: 96, height: 200 });
  });
});

describe('provider-sim - cancel', () => {
  it('stops a hanging prediction: it stays processing below 100 until cancelled, then canceled without output', async () => {
    const created = await submit(base, { prompt: '#sim:hang' }, { key: key() });
    await waitFor(base, created.body.id, (prediction) => prediction.status === 'processing');
    await new Promise((resolve) => setTimeout(resolve, LATENCY_MS * 3));
    const stuck = (await getPrediction(base, created.body.id)).body;
    expect(stuck).toMatchObject({ status: 'processing', completed_at: null });
    expect(stuck.progress).toBeLessThan(100);

    const canceled = await cancel(base, created.body.id);
    expect(canceled).toMatchObject({ status: 200, body: { id: created.body.id, status: 'canceled', output_url: null } });
    expect(canceled.body.completed_at).not.toBeNull();
    await new Promise((resolve) => setTimeout(resolve, LATENCY_MS * 2));
    expect((await getPrediction(base, created.body.id)).body.status).toBe('canceled');
    expect((await output(`${base}/v1/predictions/${created.body.id}/output`)).status).toBe(404);
  });

  it('stops an ordinary prediction before it produces anything', async () => {
    const created = await submit(base, { prompt: '#sim-latency=400' });
    await waitFor(base, created.body.id, (prediction) => prediction.status === 'processing');
    expect((await cancel(base, created.body.id)).body.status).toBe('canceled');
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect((await getPrediction(base, created.body.id)).body).toMatchObject({ status: 'canceled', output_url: null, safety: null });
  });

  it('returns a finished prediction unchanged', async () => {
    const created = await submit(base, {});
    const done = await finished(base, created.body.id);
    const again = await cancel(base, created.body.id);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(done);
  });
});

describe('provider-sim - simulated failures', () => {
  it.each([
    ['unavailable', 503, 'unavailable'],
    ['rate_limit', 429, 'rate_limited'],
    ['credentials', 401, 'invalid_credentials'],
  ])('#sim:%s refuses the POST with %i and creates nothing', async (kind, status, code) => {
    const idempotencyKey = key();
    const before = (await stats(base)).body.predictions_total;
    const refused = await submit<ErrorBody>(base, { prompt: `#sim:${kind}` }, { key: idempotencyKey });
    expect(refused.status).toBe(status);
    expect(refused.body.error.code).toBe(code);
    if (kind === 'rate_limit') expect(refused.headers.get('retry-after')).toBe('1');
    const after = (await stats(base)).body;
    expect(after.predictions_total).toBe(before);
    expect(after.by_key[idempotencyKey]).toEqual({ submissions: 0, requests: 1 });
  });

  it.each([
    ['prediction_failed', 'provider_error'],
    ['content_safety', 'content_policy_violation'],
  ])('#sim:%s ends the prediction failed with %s', async (kind, code) => {
    const created = await submit(base, { prompt: `#sim:${kind}` });
    expect(created.status).toBe(201);
    const done = await finished(base, created.body.id);
    expect(done).toMatchObject({ status: 'failed', error: { code }, output_url: null, safety: null });
    expect(done.progress).toBeLessThan(100);
  });

  it('#sim:invalid_output succeeds with bytes that are not an image, served as image/png', async () => {
    const created = await submit(base, { prompt: '#sim:invalid_output' });
    const done = await finished(base, created.body.id);
    expect(done).toMatchObject({ status: 'succeeded', output_content_type: 'image/png' });
    const result = await output(done.output_url!);
    expect(result.contentType).toBe('image/png');
    expect(result.bytes.length).toBeGreaterThan(0);
    expect(probeImage(result.bytes)).toBeUndefined();
  });

  it('#sim:blank_output succeeds with one flat image of the size asked, and #sim:wrong_size_output with a 32x32 picture', async () => {
    const blank = await finished(base, (await submit(base, { prompt: '#sim:blank_output', width: 200, height: 100 })).body.id);
    expect(blank).toMatchObject({ status: 'succeeded', output_content_type: 'image/png' });
    const blankBytes = (await output(blank.output_url!)).bytes;
    expect(probeImage(blankBytes)).toEqual({ contentType: 'image/png', width: 200, height: 100 });
    expect((await sharp(blankBytes).stats()).channels.every((channel) => channel.stdev === 0)).toBe(true);

    const small = await finished(base, (await submit(base, { prompt: '#sim:wrong_size_output', width: 200, height: 100 })).body.id);
    expect(small).toMatchObject({ status: 'succeeded', output_content_type: 'image/png' });
    expect(probeImage((await output(small.output_url!)).bytes)).toEqual({ contentType: 'image/png', width: 32, height: 32 });
  });

  it('#sim:flagged succeeds normally with safety.flagged true', async () => {
    const created = await submit(base, { prompt: '#sim:flagged', style: 'comic' });
    const done = await finished(base, created.body.id);
    expect(done).toMatchObject({ status: 'succeeded', safety: { flagged: true } });
    expect(probeImage((await output(done.output_url!)).bytes)?.contentType).toBe('image/png');
  });

  it('#sim-flaky=2 answers the first two polls and the first two output downloads 503, while the prediction goes on', async () => {
    const created = await submit(base, { prompt: 'a cat #sim-flaky=2 #sim-latency=100' }, { key: key() });
    const polls = [await getPrediction(base, created.body.id), await getPrediction(base, created.body.id)];
    expect(polls.map((poll) => poll.status)).toEqual([503, 503]);
    expect((polls[0]!.body as unknown as ErrorBody).error.code).toBe('unavailable');
    const done = await finished(base, created.body.id);
    expect(done.status).toBe('succeeded');
    const downloads = [await output(done.output_url!), await output(done.output_url!), await output(done.output_url!)];
    expect(downloads.map((download) => download.status)).toEqual([503, 503, 200]);
    expect(probeImage(downloads[2]!.bytes)?.contentType).toBe('image/png');
  });

  it('#sim-once refuses only the first POST of the job; a retry with the same key is created and charged once', async () => {
    const job = key();
    const first = await submit<ErrorBody>(base, { prompt: '#sim-once:unavailable' }, { key: job });
    const retry = await submit(base, { prompt: '#sim-once:unavailable' }, { key: job });
    expect([first.status, retry.status]).toEqual([503, 201]);
    expect((await finished(base, retry.body.id)).status).toBe('succeeded');
    expect((await stats(base)).body.by_key[job]).toEqual({ submissions: 1, requests: 2 });
  });

  it('#sim-once fails only the first prediction of the job: keys job:1 and job:2 share the job', async () => {
    const job = key();
    const firstAttempt = await submit(base, { prompt: '#sim-once:prediction_failed' }, { key: `${job}:1` });
    const secondAttempt = await submit(base, { prompt: '#sim-once:prediction_failed' }, { key: `${job}:2` });
    expect([firstAttempt.status, secondAttempt.status]).toEqual([201, 201]);
    expect((await finished(base, firstAttempt.body.id)).error?.code).toBe('provider_error');
    expect((await finished(base, secondAttempt.body.id)).status).toBe('succeeded');
    // The bare job key belongs to the same job, so it is not "first" either.
    const bare = await submit(base, { prompt: '#sim-once:rate_limit' }, { key: job });
    expect(bare.status).toBe(201);
  });

  it('applies PROVIDER_SIM_FAILURE_RATE and PROVIDER_SIM_FAILURE_KIND to every prediction', async () => {
    const failing = await startSim({ failureRate: 1, failureKind: 'content_safety' });
    const created = await submit(failing.base, {});
    expect((await finished(failing.base, created.body.id)).error?.code).toBe('content_policy_violation');

    const limited = await startSim({ failureRate: 1, failureKind: 'rate_limit' });
    const refused = await submit<ErrorBody>(limited.base, {}, { key: 'k' });
    expect(refused.status).toBe(429);
    expect((await stats(limited.base)).body).toEqual({
      predictions_total: 0,
      predictions_in_memory: 0,
      by_key: { k: { submissions: 0, requests: 1 } },
      calls: { total: { submit: 1, poll: 0, cancel: 0, output_fetch: 0 }, by_prediction: {}, submits_by_key: { k: 1 } },
      open_predictions: { now: 0, max: 0, by_account: {} },
    });

    const never = await startSim({ failureRate: 0.5, failureKind: 'hang', random: () => 0.5 });
    expect((await finished(never.base, (await submit(never.base, {})).body.id)).status).toBe('succeeded');
  });
});

describe('provider-sim - what the vendor bills and counts', () => {
  type Calls = { submit: number; poll: number; cancel: number; output_fetch: number };
  const callStats = async (at: string) =>
    (
      await call<{ calls: { total: Calls; by_prediction: Record<string, Calls>; submits_by_key: Record<string, number> } }>(
        `${at}/v1/stats`,
      )
    ).body.calls;

  it('reports predict_time in seconds and images on an ended prediction, and counts every call per kind and prediction', async () => {
    const own = await startSim();
    const idempotencyKey = key();
    const created = await submit(own.base, { style: 'comic', prompt: 'a cat #sim-latency=300' }, { key: idempotencyKey });
    await submit(own.base, { style: 'comic' }, { key: idempotencyKey });
    expect(created.body.metrics).toEqual({ predict_time_ms: null });
    let polls = 0;
    const done = await waitFor(own.base, created.body.id, (prediction) => {
      polls += 1;
      return prediction.status === 'succeeded';
    });
    expect(done.metrics).toEqual({ predict_time_ms: expect.any(Number), predict_time: done.metrics.predict_time_ms! / 1000, images: 1 });
    expect(done.metrics.predict_time).toBeGreaterThanOrEqual(0.29);
    await output(done.output_url!);
    await cancel(own.base, created.body.id);
    await getPrediction(own.base, 'pred_unknown');
    const calls = await callStats(own.base);
    expect(calls.by_prediction[created.body.id]).toEqual({ submit: 2, poll: polls, cancel: 1, output_fetch: 1 });
    expect(calls.by_prediction.pred_unknown).toEqual({ submit: 0, poll: 1, cancel: 0, output_fetch: 0 });
    expect(calls.submits_by_key[idempotencyKey]).toBe(2);
    expect(calls.total).toEqual({ submit: 2, poll: polls + 1, cancel: 1, output_fetch: 1 });

    const failed = await submit(own.base, { prompt: '#sim:prediction_failed' }, { key: key() });
    expect((await finished(own.base, failed.body.id)).metrics).toMatchObject({ predict_time: expect.any(Number), images: 0 });
  });
});

describe('provider-sim - input image', () => {
  it.each([
    ['a closed port', 'http://127.0.0.1:9/pattern.png'],
    ['an HTTP 404', '/missing.png'],
  ])('fails input_unreachable for %s', async (_case, url) => {
    const created = await submit(base, { image_url: url.startsWith('/') ? `${inputBase}${url}` : url });
    expect(created.status).toBe(201);
    const done = await finished(base, created.body.id);
    expect(done).toMatchObject({ status: 'failed', error: { code: 'input_unreachable' }, started_at: null });
    expect(done.metrics.predict_time_ms).toBeNull();
  });

  it('fails input_unreachable when the input does not arrive within the timeout', async () => {
    const impatient = await startSim({ inputTimeoutMs: 200 });
    const created = await submit(impatient.base, { image_url: `${inputBase}/slow.png` });
    const done = await finished(impatient.base, created.body.id);
    expect(done.error).toEqual({ code: 'input_unreachable', message: expect.stringContaining('within 200 ms') });
  });

  it('fails input_invalid when the input is not an image', async () => {
    const created = await submit(base, { image_url: `${inputBase}/notes.txt` });
    expect((await finished(base, created.body.id)).error?.code).toBe('input_invalid');
  });
});

describe('provider-sim - authentication', () => {
  it('refuses a missing or empty Authorization header with 401 on every authenticated route', async () => {
    const created = await submit(base, {});
    const noAuth = { 'content-type': 'application/json' };
    for (const headers of [
      noAuth,
      { ...noAuth, authorization: '' },
      { ...noAuth, authorization: 'Bearer ' },
      { ...noAuth, authorization: 'Basic eDp5' },
    ]) {
      const refused = await submit<ErrorBody>(base, {}, { headers });
      expect(refused.status).toBe(401);
      expect(refused.body.error.code).toBe('unauthenticated');
      expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer/);
    }
    expect((await call(`${base}/v1/predictions/${created.body.id}`)).status).toBe(401);
    expect((await call(`${base}/v1/predictions/${created.body.id}/cancel`, { method: 'POST' })).status).toBe(401);
  });

  it('with PROVIDER_SIM_API_KEYS accepts only the configured keys', async () => {
    const locked = await startSim({ apiKeys: ['key-a', 'key-b'] });
    const wrong = await submit<ErrorBody>(locked.base, {}, { headers: { authorization: 'Bearer key-c' } });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe('invalid_credentials');
    const right = await submit(locked.base, {}, { headers: { authorization: 'Bearer key-b' } });
    expect(right.status).toBe(201);
    const poll = await call(`${locked.base}/v1/predictions/${right.body.id}`, { headers: { authorization: 'Bearer key-a' } });
    expect(poll.status).toBe(200);
    const wrongPoll = await call(`${locked.base}/v1/predictions/${right.body.id}`, { headers: { authorization: 'Bearer nope' } });
    expect(wrongPoll.status).toBe(401);
  });

  it('serves outputs, stats and health without credentials', async () => {
    const done = await finished(base, (await submit(base, {})).body.id);
    expect((await output(done.output_url!)).status).toBe(200);
    expect((await call(`${base}/v1/stats`)).status).toBe(200);
    expect((await call(`${base}/healthz`)).status).toBe(200);
  });
});

describe('provider-sim - request validation', () => {
  it.each([
    ['model missing', { input: { image_url: 'http://x/y.png' } }, 'model: '],
    ['input missing', { model: 'm' }, 'input: '],
    ['image_url not http(s)', { model: 'm', input: { image_url: 'file:///etc/passwd' } }, 'input.image_url: must be an http(s) URL'],
    ['width too small', { model: 'm', input: { image_url: 'http://x/y.png', width: 10 } }, 'input.width: '],
    ['scale 3', { model: 'm', input: { image_url: 'http://x/y.png', scale: 3 } }, 'input.scale: '],
    ['unknown simulation kind', { model: 'm', input: { image_url: 'http://x/y.png', prompt: '#sim:boom' } }, 'input.prompt: '],
  ])('refuses %s with 400 invalid_request naming the field', async (_case, body, message) => {
    const refused = await call<ErrorBody>(`${base}/v1/predictions`, {
      method: 'POST',
      headers: { ...AUTH, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('invalid_request');
    expect(refused.body.error.message.startsWith(message)).toBe(true);
  });

  it('refuses malformed JSON and a bad Idempotency-Key in the same error shape', async () => {
    const badJson = await call<ErrorBody>(`${base}/v1/predictions`, {
      method: 'POST',
      headers: { ...AUTH, 'content-type': 'application/json' },
      body: '{"model":',
    });
    expect(badJson).toMatchObject({ status: 400, body: { error: { code: 'invalid_request' } } });
    expect(badJson.body.error.message).toMatch(/^body: /);
    const badKey = await submit<ErrorBody>(base, {}, { key: 'k'.repeat(201) });
    expect(badKey.status).toBe(400);
    expect(badKey.body.error.message).toMatch(/^Idempotency-Key: /);
  });

  it('ignores unknown top-level fields', async () => {
    const created = await call(`${base}/v1/predictions`, {
      method: 'POST',
      headers: { ...AUTH, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', version: 'v2', webhook: 'http://x', input: { image_url: `${inputBase}/pattern.png` } }),
    });
    expect(created).toMatchObject({ status: 201, body: { model: 'm', version: 'v2' } });
  });
});

describe('provider-sim - not found', () => {
  it('answers 404 not_found for unknown predictions, outputs not ready and unknown routes', async () => {
    for (const [method, path] of [
      ['GET', '/v1/predictions/pred_nope'],
      ['POST', '/v1/predictions/pred_nope/cancel'],
      ['GET', '/v1/predictions/pred_nope/output'],
      ['GET', '/v2/anything'],
    ] as const) {
      const answer = await call<ErrorBody>(`${base}${path}`, { method, headers: AUTH });
      expect(answer.status, path).toBe(404);
      expect(answer.body.error.code).toBe('not_found');
    }
    const running = await submit(base, { prompt: '#sim:hang' });
    const early = await call<ErrorBody>(`${base}/v1/predictions/${running.body.id}/output`);
    expect(early.status).toBe(404);
    expect(early.body.error.message).toContain('status is');
    await cancel(base, running.body.id);
  });
});

describe('provider-sim - memory cap', () => {
  it('evicts the oldest finished predictions beyond the cap, never running ones, and keeps keys charged once', async () => {
    const capped = await startSim({ maxPredictions: 3, latencyMs: 0 });
    const hanging = await submit(capped.base, { prompt: '#sim:hang' }, { key: 'hang' });
    const keys = ['a', 'b', 'c', 'd'];
    const ids: string[] = [];
    for (const idempotencyKey of keys) {
      const created = await submit(capped.base, {}, { key: idempotencyKey });
      ids.push(created.body.id);
      await finished(capped.base, created.body.id);
    }
    // Five created, cap three: the hanging one stays, the two oldest finished ones (a, b) go.
    expect(capped.sim.store.size).toBe(3);
    expect((await getPrediction(capped.base, hanging.body.id)).body.status).toBe('processing');
    for (const id of ids.slice(0, 2)) {
      expect((await getPrediction(capped.base, id)).status).toBe(404);
      expect((await output(`${capped.base}/v1/predictions/${id}/output`)).status).toBe(404);
    }
    for (const id of ids.slice(2)) expect((await getPrediction(capped.base, id)).body.status).toBe('succeeded');

    const replay = await submit(capped.base, {}, { key: 'a' });
    expect(replay).toMatchObject({ status: 200, body: { id: ids[0], status: 'succeeded' } });
    const after = (await stats(capped.base)).body;
    expect(after.predictions_total).toBe(5);
    expect(after.by_key.a).toEqual({ submissions: 1, requests: 2 });
    await cancel(capped.base, hanging.body.id);
  });
});

describe('provider-sim - process start-up', () => {
  const main = fileURLToPath(new URL('./main.ts', import.meta.url));

  it('stops with exit code 78 and a message naming the variable when the configuration is bad', () => {
    const result = spawnSync(process.execPath, ['--import', 'tsx', main], {
      env: { ...process.env, HTTP_PORT: 'eighty', PROVIDER_SIM_FAILURE_RATE: '2' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(result.status).toBe(78);
    expect(result.stderr).toContain('HTTP_PORT must be an integer, got "eighty"');
    expect(result.stderr).toContain('PROVIDER_SIM_FAILURE_RATE must be a decimal between 0 and 1');
  });

  it('serves on HTTP_PORT with PUBLIC_URL in output URLs and exits 0 on SIGTERM', async () => {
    const port = await freePort();
    const service = await startProcess({
      name: 'provider-sim',
      entry: 'services/provider-sim/src/main.ts',
      port,
      env: { HTTP_PORT: String(port), LOG_LEVEL: 'warn', PROVIDER_SIM_LATENCY_MS: '0', PUBLIC_URL: 'https://vendor.example.com/' },
      ready: async (address) => (await fetch(`http://${address}/healthz`)).ok,
    });
    try {
      const created = await submit(`http://${service.address}`, {});
      const done = await finished(`http://${service.address}`, created.body.id);
      expect(done.output_url).toBe(`https://vendor.example.com/v1/predictions/${created.body.id}/output`);
    } finally {
      expect(await service.stop()).toBe(0);
    }
  });
});

describe("provider-sim - open predictions (a vendor's concurrency)", () => {
  type OpenStats = { open_predictions: { now: number; max: number; by_account: Record<string, { now: number; max: number }> } };

  it('counts open predictions per account (a fingerprint of the key, never the key) and the most ever open at once', async () => {
    const counted = await startSim();
    const other = { authorization: 'Bearer other-key' };
    const a = await submit(counted.base, { prompt: '#sim-latency=400' });
    const b = await submit(counted.base, { prompt: '#sim-latency=400' });
    await submit(counted.base, { prompt: '#sim-latency=400' }, { headers: other });
    const during = (await call<OpenStats>(`${counted.base}/v1/stats`)).body.open_predictions;
    expect(during).toMatchObject({ now: 3, max: 3 });
    expect(Object.values(during.by_account).sort((x, y) => x.now - y.now)).toEqual([
      { now: 1, max: 1 },
      { now: 2, max: 2 },
    ]);
    expect(JSON.stringify(during)).not.toContain('test-key');
    await finished(counted.base, a.body.id);
    await finished(counted.base, b.body.id);
    const after = (await call<OpenStats>(`${counted.base}/v1/stats`)).body.open_predictions;
    expect(after.max).toBe(3);
    expect(
      Object.values(after.by_account)
        .map((counts) => counts.max)
        .sort(),
    ).toEqual([1, 2]);
  });

  it('with PROVIDER_SIM_MAX_OPEN_PREDICTIONS refuses one more with 429 and its Retry-After, charging nothing', async () => {
    const capped = await startSim({ maxOpenPredictions: 2, retryAfterSeconds: 3 });
    const first = await submit(capped.base, { prompt: '#sim-latency=300' }, { key: 'c1' });
    await submit(capped.base, { prompt: '#sim-latency=300' }, { key: 'c2' });
    const refused = await submit<ErrorBody>(capped.base, {}, { key: 'c3' });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('3');
    expect((await stats(capped.base)).body.by_key.c3).toEqual({ submissions: 0, requests: 1 });
    await finished(capped.base, first.body.id);
    expect((await submit(capped.base, {}, { key: 'c3' })).status).toBe(201);
  });

  it('PROVIDER_SIM_RETRY_AFTER_SECONDS is the Retry-After of a simulated rate limit', async () => {
    const slow = await startSim({ retryAfterSeconds: 2 });
    const refused = await submit<ErrorBody>(slow.base, { prompt: '#sim:rate_limit' });
    expect([refused.status, refused.headers.get('retry-after')]).toEqual([429, '2']);
  });
});

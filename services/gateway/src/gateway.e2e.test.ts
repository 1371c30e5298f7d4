import { createHash } from 'node:crypto';
import pg from 'pg';
import sharp from 'sharp';
import { SignJWT, exportSPKI, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startOtlpCollector,
  startTestPlatform,
  waitUntil,
  type CollectedSpan,
  type OtlpCollector,
  type TestPlatform,
} from '@atelier/testing';

// The mobile API end to end: every service runs as a real process (catalog, media with its S3
// store, jobs, community, provider-sim, a worker, the gateway) on real Postgres and NATS, with
// tracing on, exporting to a collector this test runs.
let platform: TestPlatform;
let collector: OtlpCollector;
let base: string;
let sign: (subject: string, roles?: string[]) => Promise<string>;
let alice: string;
/** An identity provider's subject may be an e-mail address: the feed must never show it. */
const ALICE_SUBJECT = `alice-${process.pid}@example.com`;
let bob: string;
let admin: string;
let db: pg.Client;

beforeAll(async () => {
  const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
  sign = (subject, roles = []) =>
    new SignJWT({ roles })
      .setProtectedHeader({ alg: 'EdDSA' })
      .setSubject(subject)
      .setIssuer('e2e')
      .setAudience('atelier-app')
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(privateKey);
  collector = await startOtlpCollector();
  platform = await startTestPlatform({
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint, OTEL_BSP_SCHEDULE_DELAY: '200' },
    workers: 1,
    providerEnv: { PROVIDER_SIM_LATENCY_MS: '500' },
    jobsEnv: { QUOTA_MAX_IN_FLIGHT: '2' },
    gateway: { JWT_PUBLIC_KEY: await exportSPKI(publicKey), JWT_ISSUER: 'e2e', JWT_AUDIENCE: 'atelier-app', SSE_KEEPALIVE_MS: '200' },
  });
  base = platform.gatewayUrl!;
  [alice, bob, admin] = await Promise.all([sign(ALICE_SUBJECT), sign(`bob-${process.pid}`), sign('ops', ['admin'])]);
  db = new pg.Client({ connectionString: platform.database.url });
  await db.connect();
}, 180_000);

afterAll(async () => {
  await db?.end();
  await platform?.stop();
  await collector?.stop();
});

interface Answer<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
}

async function call<T = Record<string, unknown>>(
  method: string,
  route: string,
  options: { token?: string | null; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Answer<T>> {
  const token = options.token === undefined ? alice : options.token;
  const response = await fetch(`${base}${route}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...options.headers,
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: (text ? JSON.parse(text) : undefined) as T };
}

type ErrorBody = { error: { code: number; name: string; message: string; requestId: string } };
const expectError = (answer: Answer, status: number, code: number) => {
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  expect((answer.body as unknown as ErrorBody).error).toMatchObject({ code, requestId: answer.headers.get('x-request-id') });
};

async function png(width = 256, height = 256): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 120, g: 80, b: 200 } } })
    .composite([
      {
        input: Buffer.from(
          `<svg width="${width}" height="${height}"><circle cx="${width / 2}" cy="${height / 2}" r="${width / 4}" fill="yellow"/></svg>`,
        ),
      },
    ])
    .png()
    .toBuffer();
}

type Asset = { asset: { id: string; status: string } };
async function uploadPhoto(token = alice, complete = true): Promise<string> {
  const bytes = await png();
  const upload = await call<Asset & { upload: { url: string; headers: Record<string, string> } }>('POST', '/api/v1/media/uploads', {
    token,
    body: { purpose: 'ai_input', contentType: 'image/png', sizeBytes: bytes.length },
  });
  expect(upload.status).toBe(201);
  expect((await fetch(upload.body.upload.url, { method: 'PUT', headers: upload.body.upload.headers, body: bytes })).status).toBe(200);
  if (complete) expect((await call<Asset>('POST', `/api/v1/media/uploads/${upload.body.asset.id}/complete`, { token })).status).toBe(200);
  return upload.body.asset.id;
}

type Catalog = { models: { id: string; jobType: string }[]; styles: { id: string; code: string }[] };
async function stylizeBody(inputAssetId: string, prompt = 'my cat as pop art') {
  const catalog = (await call<Catalog>('GET', '/api/v1/creation/catalog?mediaKind=image')).body;
  return {
    jobType: 'image.stylize',
    modelId: catalog.models.find((m) => m.jobType === 'image.stylize')!.id,
    styleId: catalog.styles[0]!.id,
    inputAssetId,
    prompt,
  };
}

type Job = { id: string; status: string; progress: number; outputUrl: string | null; outputAssetId: string | null; version: number };
async function waitTerminal(jobId: string, token = alice): Promise<Job> {
  for (let i = 0; i < 300; i += 1) {
    const { body } = await call<{ job: Job }>('GET', `/api/v1/creation/jobs/${jobId}`, { token });
    if (['succeeded', 'failed', 'cancelled'].includes(body.job.status)) return body.job;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('job did not finish');
}

async function readEvents(
  jobId: string,
  headers: Record<string, string> = {},
): Promise<{ ids: number[]; statuses: string[]; keepalives: number }> {
  const response = await fetch(`${base}/api/v1/creation/jobs/${jobId}/events`, {
    headers: { authorization: `Bearer ${alice}`, ...headers },
  });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/event-stream');
  const text = await response.text(); // the stream ends after the terminal event
  const events = text.split('\n\n').filter((e) => e.includes('event: job'));
  return {
    ids: events.map((e) => Number(/^id: (\d+)$/m.exec(e)![1])),
    statuses: events.map((e) => (JSON.parse(/^data: (.*)$/m.exec(e)![1]!) as Job).status),
    keepalives: (text.match(/^: keepalive$/gm) ?? []).length,
  };
}

describe('gateway e2e - the user journey', () => {
  it('uploads, generates, follows progress, downloads, drafts, publishes and sees the post in the feed', async () => {
    const inputId = await uploadPhoto();
    const body = await stylizeBody(inputId);
    const created = await call<{ job: Job }>('POST', '/api/v1/creation/jobs', { body, headers: { 'idempotency-key': 'journey-1' } });
    expect(created.status).toBe(201);
    const replay = await call<{ job: Job }>('POST', '/api/v1/creation/jobs', { body, headers: { 'idempotency-key': 'journey-1' } });
    expect(replay.status).toBe(200);
    expect(replay.body.job.id).toBe(created.body.job.id);

    const events = await readEvents(created.body.job.id);
    expect(events.statuses.at(-1)).toBe('succeeded');
    expect(events.ids).toEqual([...events.ids].sort((a, b) => a - b));

    const job = (await call<{ job: Job }>('GET', `/api/v1/creation/jobs/${created.body.job.id}`)).body.job;
    expect(job).toMatchObject({ status: 'succeeded', progress: 100 });
    const image = Buffer.from(await (await fetch(job.outputUrl!)).arrayBuffer());
    expect(image.subarray(1, 4).toString()).toBe('PNG');
    const input = (await call<{ url: string }>('GET', `/api/v1/media/assets/${inputId}`)).body;
    const inputBytes = Buffer.from(await (await fetch(input.url)).arrayBuffer());
    expect(createHash('sha256').update(image).digest('hex')).not.toBe(createHash('sha256').update(inputBytes).digest('hex'));

    const draft = await call<{ post: { id: string; version: number; status: string; media: { assetId: string }[]; category: string } }>(
      'POST',
      `/api/v1/creation/jobs/${job.id}/draft`,
    );
    expect(draft.status).toBe(201);
    expect(draft.body.post).toMatchObject({ status: 'draft', category: 'ai_creation', media: [{ assetId: job.outputAssetId }] });
    expect((await call('POST', `/api/v1/creation/jobs/${job.id}/draft`)).status).toBe(200);
    expect((await call('GET', `/api/v1/posts/${draft.body.post.id}`, { token: bob })).status).toBe(404);

    const published = await call<{ post: { status: string; publishedAt: string } }>('PATCH', `/api/v1/posts/${draft.body.post.id}`, {
      body: { expectedVersion: draft.body.post.version, status: 'published' },
    });
    expect(published.status).toBe(200);
    expect(published.body.post.status).toBe('published');
    const feed = await call<{ items: Record<string, unknown>[] }>('GET', '/api/v1/feed?limit=5', { token: bob });
    expect(feed.body.items[0]!.id).toBe(draft.body.post.id);
    // The public feed names the author by handle, never by the identity provider's subject.
    expect(feed.body.items[0]).toMatchObject({ authorHandle: expect.stringMatching(/^u[0-9a-f]{16}$/), isMine: false });
    expect(feed.body.items[0]).not.toHaveProperty('authorUserId');
    expect(JSON.stringify(feed.body)).not.toContain(ALICE_SUBJECT);
    const seenByBob = await call<{ post: Record<string, unknown> }>('GET', `/api/v1/posts/${draft.body.post.id}`, { token: bob });
    expect(seenByBob.status).toBe(200);
    expect(seenByBob.body.post).toMatchObject({ authorHandle: feed.body.items[0]!.authorHandle, isMine: false });
    expect((await call<{ post: { isMine: boolean } }>('GET', `/api/v1/posts/${draft.body.post.id}`)).body.post.isMine).toBe(true);
  });

  it('resumes an SSE stream after Last-Event-ID and keeps quiet streams alive', async () => {
    const inputId = await uploadPhoto();
    const created = await call<{ job: Job }>('POST', '/api/v1/creation/jobs', {
      body: await stylizeBody(inputId, 'slow one #sim-latency=1500'),
      headers: { 'idempotency-key': 'sse-resume' },
    });
    const done = await waitTerminal(created.body.job.id);
    const resumed = await readEvents(done.id, { 'last-event-id': String(done.version - 1) });
    expect(resumed.ids).toEqual([done.version]);
    expect(resumed.statuses).toEqual(['succeeded']);
    const slow = await call<{ job: Job }>('POST', '/api/v1/creation/jobs', {
      body: await stylizeBody(inputId, 'slower one #sim-latency=1500'),
      headers: { 'idempotency-key': 'sse-keepalive' },
    });
    const live = await readEvents(slow.body.job.id);
    expect(live.statuses.at(-1)).toBe('succeeded');
    expect(live.keepalives).toBeGreaterThan(0);
  });
});

// OTLP span kinds.
const SERVER = 2;
const PRODUCER = 4;
const CONSUMER = 5;

async function scrape(url: string): Promise<string> {
  const response = await fetch(url);
  expect(response.status, url).toBe(200);
  return response.text();
}

/** The value of the series `name` carrying every given label (in any order), or undefined. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`${name}{`) && Object.entries(labels).every(([key, value]) => l.includes(`${key}="${value}"`)));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('gateway e2e - observability', () => {
  it('follows one job in one trace: gateway → gRPC → outbox → NATS → worker → provider-sim', async () => {
    const body = await stylizeBody(await uploadPhoto(), 'traced cat');
    const created = await call<{ job: Job }>('POST', '/api/v1/creation/jobs', { body, headers: { 'idempotency-key': 'traced-1' } });
    expect(created.status).toBe(201);
    const jobId = created.body.job.id;
    expect((await waitTerminal(jobId)).status).toBe('succeeded');

    const consumed = (spans: CollectedSpan[]) => spans.find((s) => s.kind === CONSUMER && s.attributes['atelier.job.id'] === jobId);
    const spans = await collector.waitFor((all) => {
      const consumer = consumed(all);
      return !!consumer && all.some((s) => s.service === 'provider-sim' && s.traceId === consumer.traceId);
    });
    const consumer = consumed(spans)!;
    const trace = spans.filter((s) => s.traceId === consumer.traceId);
    const describe = trace.map((s) => `${s.service} ${s.kind} ${s.name}`).join('\n');

    // The trace starts at the gateway: its server span for the POST is the root.
    const root = trace.find((s) => s.service === 'gateway' && s.kind === SERVER);
    expect(root, describe).toBeDefined();
    expect(root!.parentSpanId).toBe('');
    expect(
      trace.some((s) => s.service === 'jobs' && s.kind === SERVER && s.name.endsWith('JobsService/CreateJob')),
      describe,
    ).toBe(true);
    // The dispatch joins the trace from the context stored with the outbox row — published by the
    // relay, or handed straight to a waiting worker (AwaitJobs) — and the worker continues from
    // the message headers or from the context handed over with the job.
    const producer = trace.find(
      (s) => s.service === 'jobs' && s.kind === PRODUCER && (s.name === 'job.dispatch publish' || s.name === 'job.dispatch hand-over'),
    );
    expect(producer, describe).toBeDefined();
    expect(consumer.service).toBe('worker');
    expect(consumer.parentSpanId).toBe(producer!.spanId);
    expect(
      trace.some((s) => s.service === 'provider-sim' && s.kind === SERVER),
      describe,
    ).toBe(true);

    const stored = await db.query<{ trace_context: { traceparent: string } }>(
      'SELECT trace_context FROM jobs.generation_jobs WHERE id = $1',
      [jobId],
    );
    expect(stored.rows[0]!.trace_context.traceparent).toContain(consumer.traceId);
  });

  it('exposes the named Prometheus series on every service', async () => {
    const jobs = await scrape(`http://127.0.0.1:${platform.jobs.metricsPort}/metrics`);
    const stylize = { service: 'jobs', job_type: 'image.stylize' };
    expect(sample(jobs, 'atelier_jobs_created_total', stylize)).toBeGreaterThanOrEqual(1);
    expect(sample(jobs, 'atelier_jobs_claimed_total', stylize)).toBeGreaterThanOrEqual(1);
    expect(sample(jobs, 'atelier_jobs_succeeded_total', stylize)).toBeGreaterThanOrEqual(1);
    expect(jobs).toContain('# TYPE atelier_jobs_failed_total counter');
    expect(jobs).toContain('# TYPE atelier_jobs_lease_expiries_total counter');
    expect(sample(jobs, 'atelier_jobs_queue_depth', { queue: 'interactive', state: 'ready' })).toBeGreaterThanOrEqual(0);
    expect(sample(jobs, 'atelier_outbox_backlog', { status: 'pending' })).toBeGreaterThanOrEqual(0);
    expect(sample(jobs, 'atelier_outbox_publish_lag_seconds_count', { service: 'jobs' })).toBeGreaterThanOrEqual(1);
    // Every job created shows where its CreateJob waited: on the peers, then on its insert batch.
    const peersStage = sample(jobs, 'atelier_jobs_create_stage_seconds_count', { stage: 'peers' });
    expect(peersStage).toBeGreaterThanOrEqual(1);
    expect(sample(jobs, 'atelier_jobs_create_stage_seconds_count', { stage: 'insert' })).toBe(peersStage);
    expect(sample(jobs, 'atelier_jobs_create_stage_seconds_sum', { stage: 'insert' })).toBeGreaterThan(0);
    const createJob = { method: '/atelier.jobs.v1.JobsService/CreateJob', code: 'OK' };
    expect(sample(jobs, 'atelier_grpc_server_handling_seconds_count', createJob)).toBeGreaterThanOrEqual(1);
    for (const service of ['catalog', 'media', 'community'] as const) {
      const text = await scrape(`http://127.0.0.1:${platform[service]!.metricsPort}/metrics`);
      const served = text.split('\n').filter((line) => line.startsWith('atelier_grpc_server_handling_seconds_count{'));
      expect(
        served.some((line) => line.includes(`service="${service}"`) && line.includes(`method="/atelier.${service}.v1.`)),
        service,
      ).toBe(true);
      expect(sample(text, 'process_resident_memory_bytes', { service })).toBeGreaterThan(0);
    }
    const worker = await scrape(`http://${platform.workers[0]!.address}/metrics`);
    expect(sample(worker, 'atelier_worker_provider_submissions_total', { service: 'worker', provider: 'sim' })).toBeGreaterThanOrEqual(1);
    expect(sample(worker, 'atelier_worker_jobs_total', { job_type: 'image.stylize', outcome: 'succeeded' })).toBeGreaterThanOrEqual(1);
    const gateway = await scrape(`${base}/metrics`);
    const posts = { service: 'gateway', method: 'POST', route: '/api/v1/creation/jobs', status: '201' };
    expect(sample(gateway, 'atelier_gateway_http_request_duration_seconds_count', posts)).toBeGreaterThanOrEqual(1);
    const provider = await scrape(`${platform.providerUrl}/metrics`);
    expect(sample(provider, 'atelier_provider_sim_predictions_created_total', { service: 'provider-sim' })).toBeGreaterThanOrEqual(1);
  });
});

describe('gateway e2e - finished jobs from memory', () => {
  it('answers another read of a succeeded job without asking jobs, and a stranger exactly as jobs does', async () => {
    const created = await call<{ job: Job }>('POST', '/api/v1/creation/jobs', {
      body: await stylizeBody(await uploadPhoto(), 'remembered cat'),
      headers: { 'idempotency-key': 'remembered-1' },
    });
    const done = await waitTerminal(created.body.job.id);
    expect(done.status).toBe('succeeded');
    const getJobs = async (code: string) =>
      sample(await scrape(`http://127.0.0.1:${platform.jobs.metricsPort}/metrics`), 'atelier_grpc_server_handling_seconds_count', {
        method: '/atelier.jobs.v1.JobsService/GetJob',
        code,
      }) ?? 0;
    const hits = async () => sample(await scrape(`${base}/metrics`), 'atelier_gateway_job_view_cache_total', { result: 'hit' }) ?? 0;
    const [servedBefore, hitsBefore] = [await getJobs('OK'), await hits()];

    const again = await call<{ job: Job }>('GET', `/api/v1/creation/jobs/${done.id}`);
    expect(again.status).toBe(200);
    expect(again.body.job).toMatchObject({ id: done.id, status: 'succeeded', version: done.version, outputAssetId: done.outputAssetId });
    expect((await fetch(again.body.job.outputUrl!)).status).toBe(200);
    expect(await getJobs('OK')).toBe(servedBefore);
    expect(await hits()).toBe(hitsBefore + 1);

    const refusedBefore = await getJobs('NOT_FOUND');
    expectError(await call('GET', `/api/v1/creation/jobs/${done.id}`, { token: bob }), 404, 40407);
    expect(await getJobs('NOT_FOUND')).toBe(refusedBefore + 1);
  });
});

describe('gateway e2e - queued jobs from memory', () => {
  it("answers a queued job's reads from the view jobs pushes, and sees its cancel long before the position may age", async () => {
    // A gateway whose queue positions may be 10 s old: a status change seen within 5 s came by push.
    const gateway = await platform.startGateway({ QUEUED_VIEW_FRESH_MS: '10000' });
    const read = async (id: string, token = alice) => {
      const response = await fetch(`http://${gateway.address}/api/v1/creation/jobs/${id}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      return { status: response.status, body: (await response.json()) as { job: Job & { queuePosition: number | null } } };
    };
    const getJobs = async () =>
      sample(await scrape(`http://127.0.0.1:${platform.jobs.metricsPort}/metrics`), 'atelier_grpc_server_handling_seconds_count', {
        method: '/atelier.jobs.v1.JobsService/GetJob',
        code: 'OK',
      }) ?? 0;
    // No worker claims it meanwhile: the job stays queued until cancelled. A paused worker's wait
    // at jobs (AwaitJobs) would still take it until that wait ends: the job comes after.
    platform.workers[0]!.pause();
    try {
      const jobsMetrics = `http://127.0.0.1:${platform.jobs.metricsPort}/metrics`;
      await waitUntil(async () => sample(await scrape(jobsMetrics), 'atelier_jobs_waiting_workers', {}) === 0, {
        what: "the paused worker's wait at jobs to end",
        timeoutMs: 15_000,
      });
      const created = await call<{ job: Job }>('POST', '/api/v1/creation/jobs', {
        body: await stylizeBody(await uploadPhoto(), 'queued cat'),
        headers: { 'idempotency-key': 'queued-from-memory' },
      });
      const id = created.body.job.id;
      const first = await read(id);
      expect(first.body.job).toMatchObject({ id, status: 'queued', version: created.body.job.version });
      expect(first.body.job.queuePosition).toEqual(expect.any(Number));
      const served = await getJobs();
      const viewHits = async () =>
        sample(await scrape(`http://${gateway.address}/metrics`), 'atelier_gateway_queued_job_view_total', { result: 'hit' }) ?? 0;
      const hitsBefore = await viewHits();
      const again = await read(id);
      expect(again.body.job).toMatchObject({ id, status: 'queued', queuePosition: first.body.job.queuePosition });
      expect(await getJobs()).toBe(served);
      expect(await viewHits()).toBe(hitsBefore + 1);
      expect(sample(await scrape(`http://${gateway.address}/metrics`), 'atelier_gateway_queued_jobs_followed', {})).toBe(1);
      // Anyone else is asked of jobs: 404, exactly as for a job that does not exist.
      expect((await read(id, bob)).status).toBe(404);

      // Cancelled through another way in (an operator, through jobs' admin API): the view goes at once.
      expect((await call('POST', `/admin-api/jobs/${id}/cancel`, { token: admin })).status).toBe(200);
      const deadline = Date.now() + 5_000;
      let seen = (await read(id)).body.job.status;
      while (seen !== 'cancelled' && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        seen = (await read(id)).body.job.status;
      }
      expect(seen).toBe('cancelled');
    } finally {
      platform.workers[0]!.resume();
      await gateway.stop();
    }
  });
});

type AdminDetails = {
  job: Job & { userId: string; providerRequestId: string | null };
  events: { from: string | null; to: string; actor: string; at: string }[];
  attempts: { attempt: number; outcome: string; claimedBy: string; queuedWaitMs: number; runMs: number; endedAt: string | null }[];
};

describe('gateway e2e - the operator API', () => {
  it("shows an admin a job's whole story: every transition, its attempt with timings, the vendor's request id", async () => {
    const carol = await sign(`carol-${process.pid}`);
    const created = await call<{ job: Job }>('POST', '/api/v1/creation/jobs', {
      token: carol,
      body: await stylizeBody(await uploadPhoto(carol)),
      headers: { 'idempotency-key': 'admin-story' },
    });
    await waitTerminal(created.body.job.id, carol);
    expectError(await call('GET', `/admin-api/jobs/${created.body.job.id}`, { token: carol }), 403, 40301);
    const { status, body } = await call<AdminDetails>('GET', `/admin-api/jobs/${created.body.job.id}`, { token: admin });
    expect(status).toBe(200);
    expect(body.job).toMatchObject({ userId: `carol-${process.pid}`, status: 'succeeded', providerRequestId: expect.any(String) });
    expect(body.events.map((e) => [e.from, e.to])).toEqual([
      [null, 'queued'],
      ['queued', 'running'],
      ['running', 'succeeded'],
    ]);
    expect(body.events[0]!.actor).toBe(`user:carol-${process.pid}`);
    expect(body.attempts).toEqual([
      expect.objectContaining({
        attempt: 1,
        outcome: 'succeeded',
        claimedBy: expect.stringMatching(/^worker:/),
        endedAt: body.events[2]!.at,
      }),
    ]);
    expect(body.attempts[0]!.runMs).toBe(Date.parse(body.events[2]!.at) - Date.parse(body.events[1]!.at));
    expectError(await call('GET', '/admin-api/jobs/019a0000-0000-7000-8000-0000000000ee', { token: admin }), 404, 40407);
    expectError(await call('GET', '/admin-api/jobs/not-a-job', { token: admin }), 400, 40000);
  });

  it("cancels another user's job as an admin, then answers 409 naming its status", async () => {
    const dave = await sign(`dave-${process.pid}`);
    const created = await call<{ job: Job }>('POST', '/api/v1/creation/jobs', {
      token: dave,
      body: await stylizeBody(await uploadPhoto(dave)),
      headers: { 'idempotency-key': 'admin-cancel' },
    });
    const id = created.body.job.id;
    expectError(await call('POST', `/admin-api/jobs/${id}/cancel`, { token: dave }), 403, 40301);
    const cancelled = await call<{ job: Job }>('POST', `/admin-api/jobs/${id}/cancel`, { token: admin });
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    expect(cancelled.body.job.status).toBe('cancelled');
    expect((await waitTerminal(id, dave)).status).toBe('cancelled');
    const again = await call<ErrorBody>('POST', `/admin-api/jobs/${id}/cancel`, { token: admin });
    expectError(again, 422, 42206);
    expect(again.body.error.message).toContain('cancelled');
    const story = await call<AdminDetails>('GET', `/admin-api/jobs/${id}`, { token: admin });
    expect(story.body.events.at(-1)).toMatchObject({ to: 'cancelled', actor: 'operator:ops' });
  });

  it('audits every replay call, replayed or refused, and pages the audit newest first', async () => {
    const job = (await db.query(`SELECT id FROM jobs.generation_jobs LIMIT 1`)).rows[0].id;
    const dead = await db.query(
      `INSERT INTO jobs.outbox (aggregate_id, event_type, subject, dedupe_key, payload, status, attempt_count, last_error)
       VALUES ($1, 'job.e2e_replay', 'atelier.e2e.nowhere', $2, '{}', 'dead', 5, 'no stream') RETURNING id`,
      [job, `e2e-replay-${process.pid}`],
    );
    const id = String(dead.rows[0].id);
    expectError(await call('GET', '/admin-api/outbox/replays'), 403, 40301);
    expect((await call('POST', `/admin-api/outbox/${id}/replay`, { token: admin })).status).toBe(200);
    expectError(await call('POST', `/admin-api/outbox/${id}/replay`, { token: admin }), 422, 42206);
    const first = await call<{ items: { outboxId: string; operatorId: string; result: string }[]; nextCursor: string | null }>(
      'GET',
      '/admin-api/outbox/replays?limit=1',
      { token: admin },
    );
    expect(first.body.items).toEqual([expect.objectContaining({ outboxId: id, operatorId: 'ops', result: 'not_dead' })]);
    const second = await call<{ items: { outboxId: string; result: string }[] }>(
      'GET',
      `/admin-api/outbox/replays?limit=1&cursor=${first.body.nextCursor}`,
      { token: admin },
    );
    expect(second.body.items).toEqual([expect.objectContaining({ outboxId: id, result: 'replayed' })]);
    // The row has no stream to go to: take it out of the relay's way.
    await db.query(`DELETE FROM jobs.outbox WHERE id = $1`, [id]);
  });

  it('manages the catalog: a new style listed with the disabled ones, hidden from and shown to the app', async () => {
    const code = `e2e-style-${process.pid}`;
    const inApp = async () =>
      (await call<Catalog>('GET', '/api/v1/creation/catalog?mediaKind=image')).body.styles.some((s) => s.code === code);
    expectError(await call('PUT', `/admin-api/catalog/styles/${code}`, { body: { mediaKind: 'image', title: 'E2E' } }), 403, 40301);
    // Last in display order, so the other tests' first style stays theirs.
    const body = { mediaKind: 'image', title: 'E2E', promptPreset: 'as a test', sortOrder: 1_000_000 };
    const created = await call<{ style: { id: string; enabled: boolean }; created: boolean }>('PUT', `/admin-api/catalog/styles/${code}`, {
      token: admin,
      body,
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ created: true, style: { enabled: true } });
    const styleId = created.body.style.id;
    expect(await inApp()).toBe(true);
    expect((await call('PUT', `/admin-api/catalog/styles/${code}`, { token: admin, body: { ...body, title: 'E2E again' } })).status).toBe(
      200,
    );
    expect((await call('POST', `/admin-api/catalog/styles/${styleId}/disable`, { token: admin })).status).toBe(200);
    expect(await inApp()).toBe(false);
    const listed = await call<{ styles: { code: string; enabled: boolean; title: string }[]; models: { id: string; enabled: boolean }[] }>(
      'GET',
      '/admin-api/catalog',
      { token: admin },
    );
    expect(listed.body.styles.find((s) => s.code === code)).toMatchObject({ enabled: false, title: 'E2E again' });
    expect((await call('POST', `/admin-api/catalog/styles/${styleId}/enable`, { token: admin })).status).toBe(200);
    expect(await inApp()).toBe(true);
    expect((await call('POST', `/admin-api/catalog/styles/${styleId}/disable`, { token: admin })).status).toBe(200);

    // Models: the same switch, idempotent; enabling an enabled model leaves the app's catalog as it was.
    const modelId = listed.body.models.find((m) => m.enabled)!.id;
    const model = await call<{ model: { enabled: boolean } }>('POST', `/admin-api/catalog/models/${modelId}/enable`, { token: admin });
    expect(model.body.model.enabled).toBe(true);
    expectError(await call('POST', '/admin-api/catalog/models/019a0000-0000-7000-8000-0000000000ee/disable', { token: admin }), 404, 40400);
    const bad = await call<ErrorBody>('PUT', '/admin-api/catalog/models/x-model', { token: admin, body: { mediaKind: 'image' } });
    expectError(bad, 400, 40000);
    expect(bad.body.error.message).toContain('displayName');
  });

  it("checks a catalog write against the platform and media, and serves an enabled style's preview to anyone", async () => {
    const model = {
      mediaKind: 'image',
      displayName: 'E2E',
      providerCode: 'sim',
      providerModel: 'm',
      modelVersion: '1',
      jobType: 'image.stylize',
    };
    const unknownType = await call<ErrorBody>('PUT', '/admin-api/catalog/models/e2e-unknown', {
      token: admin,
      body: { ...model, jobType: 'video.stylize' },
    });
    expectError(unknownType, 400, 40000);
    expect(unknownType.body.error.message).toContain('job_type: "video.stylize" is not a job type this platform has');
    const unknownProvider = await call<ErrorBody>('PUT', '/admin-api/catalog/models/e2e-unknown', {
      token: admin,
      body: { ...model, providerCode: 'acme' },
    });
    expectError(unknownProvider, 400, 40000);
    expect(unknownProvider.body.error.message).toContain('provider_code');

    const style = { mediaKind: 'image', title: 'E2E preview', promptPreset: 'as a preview', sortOrder: 999_999 };
    const missing = await call<ErrorBody>('PUT', `/admin-api/catalog/styles/e2e-preview-${process.pid}`, {
      token: admin,
      body: { ...style, previewAssetId: '019a0000-0000-7000-8000-00000000f0ff' },
    });
    expectError(missing, 400, 40000);
    expect(missing.body.error.message).toContain('preview_asset_id');
    const unfinished = await uploadPhoto(admin, false);
    expectError(
      await call('PUT', `/admin-api/catalog/styles/e2e-preview-${process.pid}`, {
        token: admin,
        body: { ...style, previewAssetId: unfinished },
      }),
      400,
      40000,
    );

    // The admin's own upload becomes the public preview of an enabled style.
    const previewAssetId = await uploadPhoto(admin);
    const created = await call<{ style: { id: string } }>('PUT', `/admin-api/catalog/styles/e2e-preview-${process.pid}`, {
      token: admin,
      body: { ...style, previewAssetId },
    });
    expect(created.status).toBe(201);
    const styleId = created.body.style.id;
    const listed = (
      await call<{ styles: { id: string; previewUrl: string | null }[] }>('GET', '/api/v1/creation/catalog?mediaKind=image', { token: bob })
    ).body;
    const previewUrl = listed.styles.find((s) => s.id === styleId)!.previewUrl!;
    expect(previewUrl).toBe(`/public/styles/${styleId}/preview`);
    expect(listed.styles.filter((s) => s.id !== styleId).every((s) => s.previewUrl === null)).toBe(true);

    // No token: an image loader sends none.
    const redirect = await fetch(`${base}${previewUrl}`, { redirect: 'manual' });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/);
    const image = await fetch(redirect.headers.get('location')!);
    expect(image.status).toBe(200);
    const bytes = Buffer.from(await image.arrayBuffer());
    expect(bytes.subarray(1, 4).toString()).toBe('PNG');
    const asJson = await fetch(`${base}${previewUrl}`, { headers: { accept: 'application/json' } });
    expect(asJson.status).toBe(200);
    expect(await asJson.json()).toMatchObject({ url: expect.stringMatching(/^http/), expiresAt: expect.any(String) });

    // Nothing else is served: a disabled style's preview, a style without one, an unknown id.
    const hidden = await call<{ style: { id: string } }>('PUT', `/admin-api/catalog/styles/e2e-hidden-${process.pid}`, {
      token: admin,
      body: { ...style, previewAssetId, enabled: false },
    });
    expect((await fetch(`${base}/public/styles/${hidden.body.style.id}/preview`, { redirect: 'manual' })).status).toBe(404);
    const plain = listed.styles.find((s) => s.previewUrl === null)!;
    expect((await fetch(`${base}/public/styles/${plain.id}/preview`, { redirect: 'manual' })).status).toBe(404);
    expect((await fetch(`${base}/public/styles/019a0000-0000-7000-8000-0000000000ee/preview`, { redirect: 'manual' })).status).toBe(404);
    expect((await fetch(`${base}/public/styles/not-an-id/preview`, { redirect: 'manual' })).status).toBe(400);
    // Hidden from the app again: the other tests read the catalog's styles.
    expect((await call('POST', `/admin-api/catalog/styles/${styleId}/disable`, { token: admin })).status).toBe(200);
  });
});

describe('gateway e2e - answers in the language asked for (Accept-Language)', () => {
  const zh = { 'accept-language': 'zh-CN,zh;q=0.9,en;q=0.5' };
  type Names = {
    models: { code: string; displayName: string }[];
    styles: { code: string; title: string; subtitle: string; previewUrl: string | null }[];
  };
  const names = ({ models, styles }: Names) => ({
    models: models.map((m) => [m.code, m.displayName]),
    styles: styles.map((s) => [s.code, s.title, s.subtitle, s.previewUrl]),
  });
  // The app's own copy (catalog migration 0004): brand names and English subtitles in both languages.
  const models = [
    ['patbond-v1', 'Patbond-V1'],
    ['pet-art-pro', 'Pet-Art Pro'],
    ['cute-motion', 'Cute Motion'],
  ];

  it("serves exactly the app's catalog, its Chinese titles to zh-CN and English ones to en or without the header, saying which", async () => {
    const chinese = await call<Names>('GET', '/api/v1/creation/catalog?mediaKind=image', { headers: zh });
    expect(chinese.headers.get('content-language')).toBe('zh-CN');
    expect(chinese.headers.get('vary')).toContain('Accept-Language');
    expect(names(chinese.body)).toEqual({
      models,
      styles: [
        ['healing', '治愈动画', 'Healing', null],
        ['3d', '3D 卡通', '3D Cartoon', null],
        ['comic', '漫画风', 'Comic', null],
        ['watercolor', '水彩', 'Watercolor', null],
      ],
    });
    const english = await call<Names>('GET', '/api/v1/creation/catalog?mediaKind=image', { headers: { 'accept-language': 'en' } });
    expect(english.headers.get('content-language')).toBe('en');
    expect(names(english.body)).toEqual({
      models,
      styles: [
        ['healing', 'Healing Anime', 'Healing', null],
        ['3d', '3D Cartoon', '3D Cartoon', null],
        ['comic', 'Comic', 'Comic', null],
        ['watercolor', 'Watercolor', 'Watercolor', null],
      ],
    });
    const unasked = await call<Names>('GET', '/api/v1/creation/catalog?mediaKind=image');
    expect(unasked.headers.get('content-language')).toBe('en');
    expect(unasked.body).toEqual(english.body);
    const unreadable = await call<Names>('GET', '/api/v1/creation/catalog?mediaKind=image', { headers: { 'accept-language': ';;q=x,,' } });
    expect(unreadable.status).toBe(200);
    expect(unreadable.headers.get('content-language')).toBe('en');
  });

  it('takes a localized name in an admin write and answers it to the app in that language only', async () => {
    const code = `e2e-i18n-${process.pid}`;
    const body = { mediaKind: 'image', title: 'Ink', titleI18n: { 'zh-CN': '水墨' }, sortOrder: 1_000_000 };
    const written = await call<{ style: { titleI18n: Record<string, string> } }>('PUT', `/admin-api/catalog/styles/${code}`, {
      token: admin,
      body,
    });
    expect(written.status).toBe(201);
    expect(written.body.style.titleI18n).toEqual({ 'zh-CN': '水墨' });
    const seen = (await call<Names>('GET', '/api/v1/creation/catalog?mediaKind=image', { headers: zh })).body.styles.find(
      (s) => s.code === code,
    );
    expect(seen).toMatchObject({ title: '水墨', subtitle: '' });
    const refused = await call<ErrorBody>('PUT', `/admin-api/catalog/styles/${code}`, {
      token: admin,
      body: { ...body, titleI18n: { fr: 'Encre' } },
    });
    expectError(refused, 400, 40000);
    // Hidden from the app again: the other tests read the catalog's styles.
    await call('PUT', `/admin-api/catalog/styles/${code}`, { token: admin, body: { ...body, enabled: false } });
  });

  it('answers a 400 and a 429 with the same code in both languages, the message in Chinese for zh-CN', async () => {
    const badUpload = { purpose: 'ai_input', contentType: 'image/png', sizeBytes: 10, extra: 1 };
    const english = await call<ErrorBody>('POST', '/api/v1/media/uploads', { body: badUpload });
    const chinese = await call<ErrorBody>('POST', '/api/v1/media/uploads', { body: badUpload, headers: zh });
    expectError(english, 400, 40000);
    expectError(chinese, 400, 40000);
    expect(chinese.headers.get('content-language')).toBe('zh-CN');
    expect(chinese.body.error.name).toBe(english.body.error.name);
    expect(chinese.body.error.message).toBe(`请求无效：${english.body.error.message}`);

    const user = await sign(`i18n-quota-${process.pid}`);
    const body = await stylizeBody(await uploadPhoto(user), 'slow #sim-latency=3000');
    const ids: string[] = [];
    for (const key of ['l1', 'l2'])
      ids.push(
        (await call<{ job: Job }>('POST', '/api/v1/creation/jobs', { token: user, body, headers: { 'idempotency-key': key } })).body.job.id,
      );
    const refusedZh = await call<ErrorBody>('POST', '/api/v1/creation/jobs', {
      token: user,
      body,
      headers: { 'idempotency-key': 'l3', ...zh },
    });
    expectError(refusedZh, 429, 42900);
    expect(refusedZh.body.error.message).toBe('已有 2 个生成任务在排队或运行中，请等待其中一个完成');
    expect(Number(refusedZh.headers.get('retry-after'))).toBeGreaterThan(0);
    const refusedEn = await call<ErrorBody>('POST', '/api/v1/creation/jobs', { token: user, body, headers: { 'idempotency-key': 'l4' } });
    expectError(refusedEn, 429, 42900);
    expect(refusedEn.body.error.message).toBe('2 generations are already queued or running; wait for one to finish');
    for (const id of ids) await call('POST', `/api/v1/creation/jobs/${id}/cancel`, { token: user });
  });

  it("localizes a failed job's error message and keeps its code", async () => {
    const user = await sign(`i18n-job-${process.pid}`);
    const created = await call<{ job: Job }>('POST', '/api/v1/creation/jobs', {
      token: user,
      body: await stylizeBody(await uploadPhoto(user), 'refused #sim:content_safety'),
      headers: { 'idempotency-key': 'i18n-failed' },
    });
    expect(created.status).toBe(201);
    const ended = await waitTerminal(created.body.job.id, user);
    expect(ended.status).toBe('failed');
    type Failed = { job: { error: { code: string; message: string } } };
    const chinese = await call<Failed>('GET', `/api/v1/creation/jobs/${ended.id}`, { token: user, headers: zh });
    const english = await call<Failed>('GET', `/api/v1/creation/jobs/${ended.id}`, { token: user });
    expect(chinese.body.job.error.code).toBe(english.body.job.error.code);
    expect(chinese.body.job.error.code).toMatch(/^CONTENT_SAFETY_/);
    expect(english.body.job.error.message).toBe('This request was refused by the content policy.');
    expect(chinese.body.job.error.message).toBe('该请求因违反内容政策被拒绝。');
  });
});

describe('gateway e2e - every error code of SPEC §8 from a real request', () => {
  it('40000 bad request, 40101 unauthenticated, 40301 forbidden', async () => {
    expectError(
      await call('POST', '/api/v1/media/uploads', { body: { purpose: 'ai_input', contentType: 'image/png', sizeBytes: 10, extra: 1 } }),
      400,
      40000,
    );
    expectError(await call('GET', '/api/v1/feed', { token: null }), 401, 40101);
    expectError(await call('GET', '/api/v1/feed', { token: 'garbage' }), 401, 40101);
    expectError(await call('GET', '/admin-api/jobs'), 403, 40301);
    expect((await call('GET', '/admin-api/jobs', { token: admin })).status).toBe(200);
  });

  it('refuses a user upload of ai_output', async () => {
    const answer = await call<ErrorBody>('POST', '/api/v1/media/uploads', {
      body: { purpose: 'ai_output', contentType: 'image/png', sizeBytes: 10 },
    });
    expectError(answer, 400, 40000);
    expect(answer.body.error.message).toContain('body.purpose');
  });

  it("40405 another user's asset, 40407 another user's job, and another user's post", async () => {
    const inputId = await uploadPhoto();
    expectError(await call('GET', `/api/v1/media/assets/${inputId}`, { token: bob }), 404, 40405);
    expectError(
      await call('POST', '/api/v1/creation/jobs', {
        token: bob,
        body: await stylizeBody(inputId),
        headers: { 'idempotency-key': 'stolen' },
      }),
      404,
      40405,
    );
    const job = await call<{ job: Job }>('POST', '/api/v1/creation/jobs', {
      body: await stylizeBody(inputId),
      headers: { 'idempotency-key': 'mine' },
    });
    expectError(await call('GET', `/api/v1/creation/jobs/${job.body.job.id}`, { token: bob }), 404, 40407);
    expectError(await call('POST', `/api/v1/creation/jobs/${job.body.job.id}/cancel`, { token: bob }), 404, 40407);
    const post = await call<{ post: { id: string; version: number } }>('POST', '/api/v1/posts', {
      body: { category: 'general', title: 'private draft' },
      headers: { 'idempotency-key': 'draft-1' },
    });
    expectError(await call('GET', `/api/v1/posts/${post.body.post.id}`, { token: bob }), 404, 40406);
    expectError(
      await call('PATCH', `/api/v1/posts/${post.body.post.id}`, { token: bob, body: { expectedVersion: 1, title: 'x' } }),
      404,
      40406,
    );
    await waitTerminal(job.body.job.id);
  });

  it('40905 idempotency payload mismatch and 40902 version conflict', async () => {
    const first = await call('POST', '/api/v1/posts', {
      body: { category: 'general', title: 'one' },
      headers: { 'idempotency-key': 'mismatch' },
    });
    expect(first.status).toBe(201);
    expectError(
      await call('POST', '/api/v1/posts', { body: { category: 'general', title: 'two' }, headers: { 'idempotency-key': 'mismatch' } }),
      409,
      40905,
    );
    const post = (first.body as { post: { id: string; version: number } }).post;
    expect(
      (await call('PATCH', `/api/v1/posts/${post.id}`, { body: { expectedVersion: post.version, title: 'one, edited' } })).status,
    ).toBe(200);
    expectError(
      await call('PATCH', `/api/v1/posts/${post.id}`, { body: { expectedVersion: post.version, title: 'stale edit' } }),
      409,
      40902,
    );
  });

  it('42203 media not ready and 42206 generation rule violation', async () => {
    const uploading = await uploadPhoto(alice, false);
    expectError(
      await call('POST', '/api/v1/creation/jobs', { body: await stylizeBody(uploading), headers: { 'idempotency-key': 'not-ready' } }),
      422,
      42203,
    );
    const inputId = await uploadPhoto();
    const queued = await call<{ job: Job }>('POST', '/api/v1/creation/jobs', {
      body: await stylizeBody(inputId, 'a slow one #sim-latency=2000'),
      headers: { 'idempotency-key': 'unfinished' },
    });
    expectError(await call('POST', `/api/v1/creation/jobs/${queued.body.job.id}/draft`), 422, 42206);
    expectError(
      await call('POST', '/api/v1/posts', { body: { category: 'ai_creation', title: 'no job' }, headers: { 'idempotency-key': 'no-job' } }),
      422,
      42206,
    );
    await waitTerminal(queued.body.job.id);
  });

  it('42900 quota exceeded with Retry-After', async () => {
    const user = await sign(`quota-${process.pid}`);
    const inputId = await uploadPhoto(user);
    const body = await stylizeBody(inputId, 'slow #sim-latency=3000');
    const ids: string[] = [];
    for (const key of ['q1', 'q2'])
      ids.push(
        (await call<{ job: Job }>('POST', '/api/v1/creation/jobs', { token: user, body, headers: { 'idempotency-key': key } })).body.job.id,
      );
    const refused = await call('POST', '/api/v1/creation/jobs', { token: user, body, headers: { 'idempotency-key': 'q3' } });
    expectError(refused, 429, 42900);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    for (const id of ids) await call('POST', `/api/v1/creation/jobs/${id}/cancel`, { token: user });
  });

  it('42206 cancelling a finished job (the evaluation table; 40903 is retired)', async () => {
    const inputId = await uploadPhoto();
    const job = await call<{ job: Job }>('POST', '/api/v1/creation/jobs', {
      body: await stylizeBody(inputId),
      headers: { 'idempotency-key': 'finish-then-cancel' },
    });
    await waitTerminal(job.body.job.id);
    expectError(await call('POST', `/api/v1/creation/jobs/${job.body.job.id}/cancel`), 422, 42206);
  });

  it('50000 internal (a broken table) and 50300 unavailable (a stopped service), without leaking details', async () => {
    await db.query('ALTER TABLE community.posts RENAME TO posts_moved_away');
    try {
      const broken = await call<ErrorBody>('GET', '/api/v1/feed');
      expectError(broken, 500, 50000);
      expect(broken.body.error.message).toBe('internal error');
    } finally {
      await db.query('ALTER TABLE community.posts_moved_away RENAME TO posts');
    }
    await platform.community!.stop();
    expectError(await call('GET', '/api/v1/feed'), 503, 50300);
    // Only the routes that need community fail: the gateway stays in its Service, and says why.
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    expect((await call<Job>('GET', '/api/v1/creation/catalog?mediaKind=image')).status).toBe(200);
    const peers = await fetch(`${base}/readyz/peers`);
    expect(peers.status).toBe(503);
    expect(await peers.json()).toEqual({ peers: { catalog: 'SERVING', media: 'SERVING', jobs: 'SERVING', community: 'UNREACHABLE' } });
  });
});

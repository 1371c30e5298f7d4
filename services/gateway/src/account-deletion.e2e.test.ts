import pg from 'pg';
import { SignJWT, exportSPKI, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, testPng, type TestPlatform } from '@atelier/testing';

// Account deletion end to end, every service a real process on real Postgres, NATS and an S3
// store: DELETE /api/v1/me cancels the running job at the vendor, and every service deletes its
// part of the user's data on its own, driven by the account's deletion event.
let platform: TestPlatform;
let base: string;
let carol: string;
let dave: string;
let admin: string;
const CAROL = `carol-${process.pid}@example.com`;
const DAVE = `dave-${process.pid}`;
let db: pg.Client;

beforeAll(async () => {
  const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
  const sign = (subject: string, roles: string[] = []) =>
    new SignJWT({ roles })
      .setProtectedHeader({ alg: 'EdDSA' })
      .setSubject(subject)
      .setIssuer('e2e')
      .setAudience('atelier-app')
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(privateKey);
  platform = await startTestPlatform({
    workers: 1,
    providerEnv: { PROVIDER_SIM_LATENCY_MS: '300' },
    webhooks: { WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' },
    gateway: { JWT_PUBLIC_KEY: await exportSPKI(publicKey), JWT_ISSUER: 'e2e', JWT_AUDIENCE: 'atelier-app' },
  });
  base = platform.gatewayUrl!;
  [carol, dave, admin] = await Promise.all([sign(CAROL), sign(DAVE), sign('ops', ['admin'])]);
  db = new pg.Client({ connectionString: platform.database.url });
  await db.connect();
}, 180_000);

afterAll(async () => {
  await db?.end();
  await platform?.stop();
});

type Answer<T> = { status: number; body: T };
async function call<T = Record<string, unknown>>(
  method: string,
  route: string,
  token: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const response = await fetch(`${base}${route}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T } satisfies Answer<T>;
}

async function uploadPhoto(token: string): Promise<{ id: string; url: string }> {
  const bytes = await testPng(128, 128);
  const upload = await call<{ asset: { id: string }; upload: { url: string; headers: Record<string, string> } }>(
    'POST',
    '/api/v1/media/uploads',
    token,
    {
      purpose: 'ai_input',
      contentType: 'image/png',
      sizeBytes: bytes.length,
    },
  );
  expect(upload.status, JSON.stringify(upload.body)).toBe(201);
  expect((await fetch(upload.body.upload.url, { method: 'PUT', headers: upload.body.upload.headers, body: bytes })).status).toBe(200);
  expect((await call('POST', `/api/v1/media/uploads/${upload.body.asset.id}/complete`, token)).status).toBe(200);
  const read = await call<{ url: string }>('GET', `/api/v1/media/assets/${upload.body.asset.id}`, token);
  return { id: upload.body.asset.id, url: read.body.url };
}

async function jobBody(token: string, inputAssetId: string, prompt: string) {
  const catalog = (
    await call<{ models: { id: string; jobType: string }[]; styles: { id: string }[] }>(
      'GET',
      '/api/v1/creation/catalog?mediaKind=image',
      token,
    )
  ).body;
  const modelId = catalog.models.find((m) => m.jobType === 'image.stylize')!.id;
  return { jobType: 'image.stylize', modelId, styleId: catalog.styles[0]!.id, inputAssetId, prompt };
}

async function createJob(token: string, inputAssetId: string, prompt: string, key: string): Promise<string> {
  const created = await call<{ job: { id: string } }>('POST', '/api/v1/creation/jobs', token, await jobBody(token, inputAssetId, prompt), {
    'idempotency-key': key,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.job.id;
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

type Deletion = {
  status: string;
  requestedAt: string | null;
  completedAt: string | null;
  parts: { service: string; status: string; removed: number }[];
};

describe('DELETE /api/v1/me', () => {
  it('answers not_requested before any deletion', async () => {
    const answer = await call<Deletion>('GET', '/api/v1/me/deletion', dave);
    expect(answer.body).toEqual({ status: 'not_requested', requestedAt: null, completedAt: null, parts: [] });
  });

  it('cancels the running job at the vendor and deletes jobs, images and posts; then refuses new ones', async () => {
    const photo = await uploadPhoto(carol);
    const finished = await createJob(carol, photo.id, 'my dog, done', 'done');
    await until('the first job to end', async () => {
      const { body } = await call<{ job: { status: string } }>('GET', `/api/v1/creation/jobs/${finished}`, carol);
      return ['succeeded', 'failed'].includes(body.job.status) ? body.job.status : undefined;
    });
    const running = await createJob(carol, photo.id, 'a dog that never finishes #sim:hang', 'hang');
    const predictionId = await until('the running job’s prediction', async () => {
      const { body } = await call<{ job: { providerRequestId: string | null } }>('GET', `/admin-api/jobs/${running}`, admin);
      return body.job.providerRequestId ?? undefined;
    });
    const post = await call<{ post: { id: string } }>(
      'POST',
      '/api/v1/posts',
      carol,
      { category: 'general', title: 'hello', status: 'published' },
      {
        'idempotency-key': 'p1',
      },
    );
    expect(post.status).toBe(201);
    const davesPhoto = await uploadPhoto(dave);
    const endpoint = await call('POST', '/api/v1/webhooks/endpoints', carol, {
      url: 'http://127.0.0.1:9/hook',
      eventTypes: ['job.succeeded'],
    });
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);

    // The export holds all of it, bounded, with download URLs that work.
    type Export = {
      userId: string;
      jobs: { id: string }[];
      assets: { asset: { id: string }; url: string | null }[];
      posts: { id: string }[];
      truncated: boolean;
    };
    const exported = await call<Export>('GET', '/api/v1/me/export', carol);
    expect(exported.status, JSON.stringify(exported.body)).toBe(200);
    expect(exported.body).toMatchObject({ userId: CAROL, truncated: false });
    expect(exported.body.jobs.map((job) => job.id).sort()).toEqual([finished, running].sort());
    expect(exported.body.posts.map((p) => p.id)).toEqual([post.body.post.id]);
    expect(exported.body.assets.map((a) => a.asset.id)).toContain(photo.id);
    expect(exported.body.assets.map((a) => a.asset.id)).not.toContain(davesPhoto.id);
    const exportedPhoto = exported.body.assets.find((a) => a.asset.id === photo.id)!;
    expect((await fetch(exportedPhoto.url!)).status).toBe(200);

    // A quota refusal carol met today, as jobs records it for the overview: hers too.
    await db.query(
      `INSERT INTO jobs.quota_hits (allowance, period_start, user_id)
       VALUES ('daily', date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', $1)`,
      [CAROL],
    );

    const requested = await call<Deletion>('DELETE', '/api/v1/me', carol);
    expect(requested.status, JSON.stringify(requested.body)).toBe(202);
    expect(requested.body.status).toBe('in_progress');
    expect(requested.body.requestedAt).toBeTruthy();

    // From the request on, no new job: jobs refuses the account (403), or media already deleted the photo (404).
    const refusedJob = await call<{ error: { code: number } }>(
      'POST',
      '/api/v1/creation/jobs',
      carol,
      await jobBody(carol, photo.id, 'one more'),
      { 'idempotency-key': 'after' },
    );
    expect([40302, 40405]).toContain(refusedJob.body.error.code);

    let last: Deletion | undefined;
    const done = await until('the deletion to complete', async () => {
      last = (await call<Deletion>('GET', '/api/v1/me/deletion', carol)).body;
      return last.status === 'completed' ? last : undefined;
    }).catch((error: unknown) => {
      throw new Error(`${String(error)}; last seen ${JSON.stringify(last)}`);
    });
    expect(done.parts.map((part) => [part.service, part.status])).toEqual([
      ['jobs', 'completed'],
      ['media', 'completed'],
      ['community', 'completed'],
      ['webhooks', 'completed'],
    ]);
    expect(done.parts.find((part) => part.service === 'jobs')!.removed).toBe(2);
    expect(done.parts.find((part) => part.service === 'community')!.removed).toBe(1);
    expect(done.parts.find((part) => part.service === 'media')!.removed).toBeGreaterThanOrEqual(1);

    // At the vendor: the hanging prediction was cancelled, not left to run (and be charged).
    const prediction = await fetch(`${platform.providerUrl}/v1/predictions/${predictionId}`, { headers: { authorization: 'Bearer test' } });
    expect(((await prediction.json()) as { status: string }).status).toBe('canceled');

    // Nothing of carol is left in any schema or in the bucket; dave is untouched.
    const left = await db.query<{ jobs: number; quotaHits: number; assets: number; posts: number; authors: number; endpoints: number }>(
      `SELECT (SELECT count(*)::int FROM jobs.generation_jobs WHERE user_id = $1) AS jobs,
              (SELECT count(*)::int FROM jobs.quota_hits WHERE user_id = $1) AS "quotaHits",
              (SELECT count(*)::int FROM media.assets WHERE owner_user_id = $1) AS assets,
              (SELECT count(*)::int FROM community.posts WHERE author_user_id = $1) AS posts,
              (SELECT count(*)::int FROM community.authors WHERE user_id = $1) AS authors,
              (SELECT count(*)::int FROM webhooks.endpoints WHERE user_id = $1) AS endpoints`,
      [CAROL],
    );
    expect(left.rows[0]).toEqual({ jobs: 0, quotaHits: 0, assets: 0, posts: 0, authors: 0, endpoints: 0 });
    expect((await fetch(photo.url)).status).toBe(404);
    expect((await fetch(davesPhoto.url)).status).toBe(200);
    expect((await call('GET', `/api/v1/media/assets/${davesPhoto.id}`, dave)).status).toBe(200);

    // Every write is refused with its own code; the request stays answerable and idempotent.
    const upload = await call<{ error: { code: number; name: string } }>('POST', '/api/v1/media/uploads', carol, {
      purpose: 'ai_input',
      contentType: 'image/png',
      sizeBytes: 100,
    });
    expect([upload.status, upload.body.error.code, upload.body.error.name]).toEqual([403, 40302, 'ACCOUNT_DELETED']);
    const newPost = await call<{ error: { code: number } }>(
      'POST',
      '/api/v1/posts',
      carol,
      { category: 'general', title: 'again' },
      { 'idempotency-key': 'p2' },
    );
    expect([newPost.status, newPost.body.error.code]).toEqual([403, 40302]);
    const newEndpoint = await call<{ error: { code: number } }>('POST', '/api/v1/webhooks/endpoints', carol, {
      url: 'http://127.0.0.1:9/hook',
      eventTypes: ['job.succeeded'],
    });
    expect([newEndpoint.status, newEndpoint.body.error.code]).toEqual([403, 40302]);
    const again = await call<Deletion>('DELETE', '/api/v1/me', carol);
    expect([again.status, again.body.status, again.body.requestedAt]).toEqual([202, 'completed', requested.body.requestedAt]);
    const published = await db.query(`SELECT count(*)::int AS n FROM jobs.outbox WHERE event_type = 'account.deleted'`);
    expect(published.rows[0].n).toBe(1);
  }, 90_000);
});

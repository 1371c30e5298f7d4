import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, testPng, type TestPlatform } from '@atelier/testing';
import { testTokenKey } from './test-support/gateway-harness.js';

// Retention of what users wrote and gave, end to end (docs/retention.md): every service a real
// process on real Postgres, NATS and an S3 store, a worker running the jobs at provider-sim. Two
// jobs succeed, each with an input image of its own; one image is also shown by a published post.
// Then the jobs are aged past image.stylize's 30 days by SQL, as time would age them, and jobs'
// pruner (every 300 ms here) does the rest on its own.
let platform: TestPlatform;
let base: string;
let erin: string;
let db: pg.Client;
const ERIN = `erin-retention-${process.pid}`;
const PROMPT = `retention marker prompt ${process.pid}`;

beforeAll(async () => {
  const key = await testTokenKey();
  platform = await startTestPlatform({
    workers: 1,
    gateway: key.gatewayEnv,
    jobsEnv: { RETENTION_INTERVAL_MS: '300', RETENTION_BATCH_PAUSE_MS: '0' },
  });
  base = platform.gatewayUrl!;
  erin = await key.sign(ERIN);
  db = new pg.Client({ connectionString: platform.database.url });
  await db.connect();
}, 180_000);

afterAll(async () => {
  await db?.end();
  await platform?.stop();
});

interface Answer<T> {
  status: number;
  body: T;
}

async function call<T = Record<string, unknown>>(method: string, route: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${base}${route}`, {
    method,
    headers: { authorization: `Bearer ${erin}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T } satisfies Answer<T>;
}

/** An input image uploaded and completed; its download URL points straight at the bucket. */
async function uploadPhoto(blue: number): Promise<{ id: string; url: string }> {
  const bytes = await testPng(128, 128, { r: 20, g: 90, b: blue });
  const upload = await call<{ asset: { id: string }; upload: { url: string; headers: Record<string, string> } }>(
    'POST',
    '/api/v1/media/uploads',
    {
      purpose: 'ai_input',
      contentType: 'image/png',
      sizeBytes: bytes.length,
    },
  );
  expect(upload.status, JSON.stringify(upload.body)).toBe(201);
  expect((await fetch(upload.body.upload.url, { method: 'PUT', headers: upload.body.upload.headers, body: bytes })).status).toBe(200);
  expect((await call('POST', `/api/v1/media/uploads/${upload.body.asset.id}/complete`)).status).toBe(200);
  const read = await call<{ url: string }>('GET', `/api/v1/media/assets/${upload.body.asset.id}`);
  expect((await fetch(read.body.url)).status).toBe(200);
  return { id: upload.body.asset.id, url: read.body.url };
}

async function createJob(inputAssetId: string, key: string): Promise<string> {
  const catalog = (
    await call<{ models: { id: string; jobType: string }[]; styles: { id: string }[] }>('GET', '/api/v1/creation/catalog?mediaKind=image')
  ).body;
  const created = await call<{ job: { id: string } }>(
    'POST',
    '/api/v1/creation/jobs',
    {
      jobType: 'image.stylize',
      modelId: catalog.models.find((m) => m.jobType === 'image.stylize')!.id,
      styleId: catalog.styles[0]!.id,
      inputAssetId,
      prompt: PROMPT,
      negativePrompt: 'no rain',
      parameters: { strength: 0.5, seed: 7 },
    },
    { 'idempotency-key': key },
  );
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.job.id;
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Read from the database, not the API: the gateway would remember a finished view it answered (finished-job-cache.ts). */
async function jobColumns(id: string) {
  const { rows } = await db.query<{
    status: string;
    redaction_version: number | null;
    input_removed_at: Date | null;
    input_kept_at: Date | null;
  }>(`SELECT status, redaction_version, input_removed_at, input_kept_at FROM jobs.generation_jobs WHERE id = $1`, [id]);
  return rows[0]!;
}

/** Everything about the jobs happened `days` earlier; ended jobs never change, so this session skips the trigger. */
async function age(jobIds: string[], days: number): Promise<void> {
  const shift = `make_interval(days => ${days})`;
  await db.query('SET session_replication_role = replica');
  try {
    await db.query(
      `UPDATE jobs.generation_jobs SET created_at = created_at - ${shift}, updated_at = updated_at - ${shift},
              started_at = started_at - ${shift}, completed_at = completed_at - ${shift}, next_attempt_at = next_attempt_at - ${shift}
        WHERE id = ANY($1)`,
      [jobIds],
    );
    await db.query(`UPDATE jobs.job_events SET occurred_at = occurred_at - ${shift} WHERE job_id = ANY($1)`, [jobIds]);
  } finally {
    await db.query('SET session_replication_role = DEFAULT');
  }
}

interface JobView {
  id: string;
  status: string;
  prompt: string;
  negativePrompt: string;
  parameters: Record<string, unknown>;
  inputAssetId: string | null;
  outputUrl: string | null;
  snapshot: { effectivePrompt: string | null; effectiveParameters: Record<string, unknown> | null } | null;
  retention: {
    inputsRedactAt: string | null;
    inputsRedactedAt: string | null;
    redactionVersion: number | null;
    inputImageDeleteAt: string | null;
    inputImageDeletedAt: string | null;
  };
}

describe('retention e2e', () => {
  it('redacts aged jobs and deletes their input image, keeping the image a post shows; outputs stay', async () => {
    const [alone, posted] = [await uploadPhoto(200), await uploadPhoto(40)];
    const [aloneJob, postedJob] = [await createJob(alone.id, 'alone'), await createJob(posted.id, 'posted')];
    for (const id of [aloneJob, postedJob]) {
      await until(`job ${id} to succeed`, async () => {
        const { status } = await jobColumns(id);
        if (status === 'failed' || status === 'cancelled') throw new Error(`job ${id} ended ${status}`);
        return status === 'succeeded' ? status : undefined;
      });
    }
    // A published post that shows the second input image. Today's API takes only post images and
    // outputs on a post (community's POSTABLE_PURPOSES), so the image is put there by SQL: whatever
    // let it there, retention must not take an image a post shows.
    const post = await call<{ post: { id: string } }>(
      'POST',
      '/api/v1/posts',
      { category: 'general', title: 'my two cats', status: 'published' },
      { 'idempotency-key': 'post' },
    );
    expect(post.status, JSON.stringify(post.body)).toBe(201);
    await db.query(`INSERT INTO community.post_media (post_id, asset_id, ordinal) VALUES ($1, $2, 0)`, [post.body.post.id, posted.id]);

    await age([aloneJob, postedJob], 31);
    await until('retention to redact both jobs and settle both images', async () => {
      const [a, b] = [await jobColumns(aloneJob), await jobColumns(postedJob)];
      return a.redaction_version === 1 && b.redaction_version === 1 && a.input_removed_at && b.input_kept_at ? true : undefined;
    });

    // The lone job's image is gone, from the API and from the bucket; the post's is kept.
    expect((await call('GET', `/api/v1/media/assets/${alone.id}`)).status).toBe(404);
    expect((await fetch(alone.url)).status).toBe(404);
    expect((await call('GET', `/api/v1/media/assets/${posted.id}`)).status).toBe(200);
    expect((await fetch(posted.url)).status).toBe(200);
    expect((await jobColumns(postedJob)).input_removed_at).toBeNull();

    // What erin wrote is gone from both jobs; the views say what was removed and when, and the outputs are still hers.
    const views = await Promise.all(
      [aloneJob, postedJob].map(async (id) => (await call<{ job: JobView }>('GET', `/api/v1/creation/jobs/${id}`)).body.job),
    );
    for (const view of views) {
      expect(view).toMatchObject({ status: 'succeeded', prompt: '', negativePrompt: '', parameters: { strength: 0.5, seed: 7 } });
      expect(view.snapshot!.effectivePrompt).toBe('');
      expect(JSON.stringify(view)).not.toContain(PROMPT);
      expect(view.retention).toMatchObject({ redactionVersion: 1, inputsRedactedAt: expect.any(String) });
      expect(Date.parse(view.retention.inputsRedactAt!)).toBeLessThan(Date.now());
      expect((await fetch(view.outputUrl!)).status, 'the output stays while the user keeps it').toBe(200);
    }
    const [aloneView, postedView] = views;
    expect(aloneView!.retention).toMatchObject({ inputImageDeletedAt: expect.any(String), inputImageDeleteAt: null });
    expect(aloneView!.inputAssetId).toBe(alone.id);
    // The post's image is looked at again a period from now: that is when it goes at the earliest.
    expect(postedView!.retention.inputImageDeletedAt).toBeNull();
    expect(Date.parse(postedView!.retention.inputImageDeleteAt!)).toBeGreaterThan(Date.now() + 29 * 24 * 3_600_000);
  });
});

import pg from 'pg';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '@atelier/testing';
import { testTokenKey } from './test-support/gateway-harness.js';

// The gallery and the owner's delete end to end: catalog, media on its S3-protocol store, jobs,
// community and the gateway as real processes on real Postgres and NATS. No worker runs, so a
// created job stays queued for as long as a test needs it to.
let platform: TestPlatform;
let base: string;
let alice: string;
let bob: string;
let db: pg.Client;
const ALICE = `alice-gallery-${process.pid}`;

beforeAll(async () => {
  const key = await testTokenKey();
  platform = await startTestPlatform({ gateway: key.gatewayEnv });
  base = platform.gatewayUrl!;
  [alice, bob] = await Promise.all([key.sign(ALICE), key.sign(`bob-gallery-${process.pid}`)]);
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

async function call<T = Record<string, unknown>>(
  method: string,
  route: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Answer<T>> {
  const response = await fetch(`${base}${route}`, {
    method,
    headers: {
      authorization: `Bearer ${options.token ?? alice}`,
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...options.headers,
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
}

const errorCode = (answer: Answer<unknown>) => (answer.body as { error?: { code: number } } | undefined)?.error?.code;

interface AssetDto {
  id: string;
  purpose: string;
  status: string;
  refusalReason: string | null;
  refusalMessage: string | null;
}
interface GalleryPage {
  items: { asset: AssetDto; url: string | null; urlExpiresAt: string | null }[];
  nextCursor: string | null;
}

const png = () =>
  sharp({ create: { width: 96, height: 96, channels: 3, background: { r: 20, g: 140, b: 90 } } })
    .png()
    .toBuffer();

/** Starts an upload, PUTs `bytes` and completes it; the completion's answer is returned with the id. */
async function upload(purpose: string, bytes: Buffer, token = alice): Promise<{ id: string; completion: Answer<unknown> }> {
  const started = await call<{ asset: AssetDto; upload: { url: string; headers: Record<string, string> } }>(
    'POST',
    '/api/v1/media/uploads',
    {
      token,
      body: { purpose, contentType: 'image/png', sizeBytes: bytes.length },
    },
  );
  expect(started.status).toBe(201);
  expect((await fetch(started.body.upload.url, { method: 'PUT', headers: started.body.upload.headers, body: bytes })).status).toBe(200);
  const completion = await call('POST', `/api/v1/media/uploads/${started.body.asset.id}/complete`, { token });
  return { id: started.body.asset.id, completion };
}

async function readyUpload(purpose: string, token = alice): Promise<string> {
  const { id, completion } = await upload(purpose, await png(), token);
  expect(completion.status).toBe(200);
  return id;
}

/** Every page of the caller's gallery, following nextCursor. */
async function wholeGallery(query: string, token = alice): Promise<{ pages: GalleryPage[]; ids: string[] }> {
  const pages: GalleryPage[] = [];
  let cursor: string | null = null;
  do {
    const answer: Answer<GalleryPage> = await call<GalleryPage>(
      'GET',
      `/api/v1/media/assets?${query}${cursor ? `&cursor=${cursor}` : ''}`,
      { token },
    );
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    pages.push(answer.body);
    cursor = answer.body.nextCursor;
  } while (cursor);
  return { pages, ids: pages.flatMap((page) => page.items.map((item) => item.asset.id)) };
}

async function stylize(inputAssetId: string, key: string): Promise<Answer<{ job: { id: string; status: string } }>> {
  const catalog = (
    await call<{ models: { id: string; jobType: string }[]; styles: { id: string }[] }>('GET', '/api/v1/creation/catalog?mediaKind=image')
  ).body;
  return call('POST', '/api/v1/creation/jobs', {
    body: {
      jobType: 'image.stylize',
      modelId: catalog.models.find((m) => m.jobType === 'image.stylize')!.id,
      styleId: catalog.styles[0]!.id,
      inputAssetId,
      prompt: 'a gallery piece',
    },
    headers: { 'idempotency-key': key },
  });
}

describe('gateway e2e - the gallery', () => {
  it('lists the caller’s assets newest first in cursor pages, by purpose, with download URLs; nobody else’s', async () => {
    const inputs = [await readyUpload('ai_input'), await readyUpload('ai_input'), await readyUpload('ai_input')];
    const postImage = await readyUpload('post_image');
    const bobs = await readyUpload('ai_input', bob);

    const all = await wholeGallery('limit=2');
    expect(all.pages[0]!.items).toHaveLength(2);
    expect(all.ids.slice(0, 4)).toEqual([postImage, ...inputs.reverse()]);
    expect(new Set(all.ids).size).toBe(all.ids.length);
    expect(all.ids).not.toContain(bobs);
    const first = all.pages[0]!.items[0]!;
    expect(first.asset).toMatchObject({ id: postImage, purpose: 'post_image', status: 'ready', refusalReason: null });
    expect(new Date(first.urlExpiresAt!).getTime()).toBeGreaterThan(Date.now());
    expect(
      Buffer.from(await (await fetch(first.url!)).arrayBuffer())
        .subarray(1, 4)
        .toString(),
    ).toBe('PNG');

    const posts = await wholeGallery('purpose=post_image');
    expect(posts.ids).toEqual([postImage]);
    expect((await wholeGallery('purpose=ai_input', bob)).ids).toEqual([bobs]);
  });

  it('refuses a bad purpose, limit or cursor with 400 naming it', async () => {
    for (const query of ['purpose=selfie', 'limit=0', 'limit=101', 'cursor=bm90LWEtY3Vyc29y', 'cursor=a%2Fb']) {
      const answer = await call<{ error: { code: number; message: string } }>('GET', `/api/v1/media/assets?${query}`);
      expect(answer.status, query).toBe(400);
      expect(answer.body.error.code).toBe(40000);
      expect(answer.body.error.message).toMatch(/purpose|limit|cursor/);
    }
  });

  it('shows why an upload was refused, on the asset and in the gallery', async () => {
    const { id, completion } = await upload('ai_input', Buffer.from('definitely not a png, just text'));
    expect(completion.status).toBe(422);
    const shown = await call<{ asset: AssetDto; url: string | null }>('GET', `/api/v1/media/assets/${id}`);
    expect(shown.body.asset).toMatchObject({ status: 'uploading', refusalReason: 'UPLOAD_NOT_AN_IMAGE' });
    expect(shown.body.asset.refusalMessage).toContain('not a PNG, JPEG or WebP');
    expect(shown.body.url).toBeNull();
    const listed = (await wholeGallery('purpose=ai_input')).pages[0]!.items.find((item) => item.asset.id === id)!;
    expect(listed).toMatchObject({ asset: { refusalReason: 'UPLOAD_NOT_AN_IMAGE' }, url: null });
  });
});

describe('gateway e2e - deleting an asset', () => {
  it('removes the object and the row; again, or someone else’s, is 404', async () => {
    const id = await readyUpload('post_image');
    const url = (await wholeGallery('purpose=post_image')).pages[0]!.items.find((item) => item.asset.id === id)!.url!;
    expect((await fetch(url)).status).toBe(200);

    expect(errorCode(await call('DELETE', `/api/v1/media/assets/${id}`, { token: bob }))).toBe(40405);
    // An upload of an earlier day no longer counts towards today's upload limit: its row goes.
    await db.query(
      `UPDATE media.assets SET created_at = created_at - interval '2 days', ready_at = ready_at - interval '2 days' WHERE id = $1`,
      [id],
    );
    expect((await call('DELETE', `/api/v1/media/assets/${id}`)).status).toBe(204);
    expect((await fetch(url)).status).toBe(404);
    expect((await db.query('SELECT 1 FROM media.assets WHERE id = $1', [id])).rowCount).toBe(0);
    expect(errorCode(await call('DELETE', `/api/v1/media/assets/${id}`))).toBe(40405);
    expect(errorCode(await call('GET', `/api/v1/media/assets/${id}`))).toBe(40405);
    expect((await wholeGallery('purpose=post_image')).ids).not.toContain(id);
  });

  it('keeps a tombstone of an upload started today, so a delete does not give the upload back', async () => {
    const id = await readyUpload('post_image');
    expect((await call('DELETE', `/api/v1/media/assets/${id}`)).status).toBe(204);
    const { rows } = await db.query<{ status: string; sha256: Buffer | null }>('SELECT status, sha256 FROM media.assets WHERE id = $1', [
      id,
    ]);
    expect(rows).toEqual([{ status: 'deleted', sha256: null }]);
    expect(errorCode(await call('DELETE', `/api/v1/media/assets/${id}`))).toBe(40405);
  });

  it('answers 409 ASSET_IN_USE while a queued job uses the asset, and deletes it once the job is cancelled', async () => {
    const input = await readyUpload('ai_input');
    const job = await stylize(input, `in-use-${input}`);
    expect(job.status).toBe(201);
    expect(job.body.job.status).toBe('queued');

    const refused = await call<{ error: { code: number; name: string; message: string } }>('DELETE', `/api/v1/media/assets/${input}`);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 40906, name: 'ASSET_IN_USE' });
    expect(refused.body.error.message).toContain('queued or running');
    // Put back as it was: still ready, still usable.
    expect((await call<{ asset: AssetDto }>('GET', `/api/v1/media/assets/${input}`)).body.asset.status).toBe('ready');

    expect((await call('POST', `/api/v1/creation/jobs/${job.body.job.id}/cancel`)).status).toBe(200);
    expect((await call('DELETE', `/api/v1/media/assets/${input}`)).status).toBe(204);
    // A job can no longer be made from it.
    expect(errorCode(await stylize(input, `after-delete-${input}`))).toBe(40405);
  });

  it('answers 409 while a published post shows the asset, and deletes it once the post is gone', async () => {
    const image = await readyUpload('post_image');
    const post = await call<{ post: { id: string } }>('POST', '/api/v1/posts', {
      body: { category: 'general', title: 'my cat', status: 'published', mediaAssetIds: [image] },
      headers: { 'idempotency-key': `post-${image}` },
    });
    expect(post.status).toBe(201);
    const refused = await call<{ error: { code: number; message: string } }>('DELETE', `/api/v1/media/assets/${image}`);
    expect(refused.body.error.code).toBe(40906);
    expect(refused.body.error.message).toContain('published post');
    expect((await call('DELETE', `/api/v1/posts/${post.body.post.id}`)).status).toBe(200);
    expect((await call('DELETE', `/api/v1/media/assets/${image}`)).status).toBe(204);
  });

  it('finishes a delete that was cut short; meanwhile the asset is listed as deleting and no job takes it', async () => {
    const input = await readyUpload('ai_input');
    // What a media crash between the mark and the removal leaves behind.
    await db.query(`UPDATE media.assets SET status = 'deleting' WHERE id = $1`, [input]);
    const listed = (await wholeGallery('purpose=ai_input')).pages.flatMap((page) => page.items).find((item) => item.asset.id === input)!;
    expect(listed).toMatchObject({ asset: { status: 'deleting' }, url: null });
    expect(errorCode(await stylize(input, `deleting-${input}`))).toBe(40405);
    expect((await call('DELETE', `/api/v1/media/assets/${input}`)).status).toBe(204);
    expect((await wholeGallery('purpose=ai_input')).ids).not.toContain(input);
  });
});

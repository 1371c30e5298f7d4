import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobsV1, mediaV1 } from '@atelier/contracts';
import { createSqlPool, type SqlPool } from '@atelier/db';
import { ErrorCode } from '@atelier/errors';
import { type GrpcServerHandle, type PromiseClient } from '@atelier/grpc';
import { MAX_IMAGE_SIDE_PX, MIN_IMAGE_SIDE_PX } from '@atelier/images';
import { createLogger } from '@atelier/logging';
import { connectNats, deleteJobStreams, jetstream, jetstreamManager, jobsTopology } from '@atelier/nats';
import { productEventsOf } from '@atelier/outbox';
import {
  checkHealth,
  createTestDatabase,
  listReflectedServices,
  natsTestPrefix,
  rangeChecksOf,
  testClient,
  testNatsUrl,
  testProductEventsKey,
  testSecurity,
  uniqueName,
  type TestDatabase,
} from '@atelier/testing';
import { createMediaOrm, migrateMedia } from './db/media-orm.js';
import { JobOutputCleanup, outputCleanupConsumer } from './background/job-output-cleanup.js';
import type { MediaContext } from './media-context.js';
import { MEDIA_SERVICE_NAME, startMediaServer } from './server.js';
import { EMBEDDED_S3_CREDENTIALS, startEmbeddedS3, type EmbeddedS3 } from './storage/embedded-s3.js';
import { ObjectStore } from './storage/object-store.js';
import { sweepStaleUploads } from './background/upload-sweeper.js';

const { AssetPurpose, AssetStatus } = mediaV1;
const logger = createLogger({ service: 'media-test', level: 'silent' });
const ALICE = 'user-alice';
const BOB = 'user-bob';

let database: TestDatabase;
let s3Directory: string;
let s3: EmbeddedS3;
let store: ObjectStore;
let pool: SqlPool;
let db: pg.Client;
let server: GrpcServerHandle;
let client: PromiseClient<mediaV1.MediaServiceClient>;
/** Media as the worker calls it: reading any user's asset, writing and deleting server assets. */
let internal: PromiseClient<mediaV1.MediaServiceClient>;
let address: string;

beforeAll(async () => {
  database = await createTestDatabase();
  s3Directory = mkdtempSync(path.join(tmpdir(), 'atelier-s3-'));
  s3 = await startEmbeddedS3({ directory: s3Directory, port: 0 });
  store = new ObjectStore({
    endpoint: s3.endpoint,
    region: 'us-east-1',
    bucket: uniqueName('atelier-test').replaceAll('_', '-'),
    ...EMBEDDED_S3_CREDENTIALS,
    forcePathStyle: true,
  });
  await store.ensureBucket();
  const orm = await createMediaOrm(database.url, 1);
  await migrateMedia(orm, database.url);
  await orm.close();
  pool = createSqlPool({ databaseUrl: database.url, max: 4, applicationName: 'media-test' });
  db = new pg.Client({ connectionString: database.url });
  await db.connect();
  const context: MediaContext = {
    pool,
    store,
    logger,
    productEvents: productEventsOf({ PRODUCT_EVENTS_USER_KEY: testProductEventsKey(), NATS_STREAM_PREFIX: 'MEDIA_TEST' }),
    uploadUrlTtlSeconds: 300,
    downloadUrlTtlSeconds: 60,
  };
  server = await startMediaServer(context, {
    host: '127.0.0.1',
    port: 0,
    healthPort: 0,
    reflection: true,
    security: await testSecurity('media'),
  });
  address = `127.0.0.1:${server.port}`;
  client = await testClient(mediaV1.MediaServiceClient, address, 'gateway');
  internal = await testClient(mediaV1.MediaServiceClient, address, 'worker');
});

afterAll(async () => {
  client?.close();
  internal?.close();
  await server?.shutdown(100);
  await db?.end();
  await pool?.end();
  store?.close();
  await s3?.close();
  rmSync(s3Directory, { recursive: true, force: true });
  await database?.drop();
});

async function png(width = 200, height = 150, colour = { r: 10, g: 160, b: 90 }): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: colour } })
    .png()
    .toBuffer();
}
const sha256 = (bytes: Buffer | Uint8Array) => createHash('sha256').update(bytes).digest('hex');

async function refusal(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, 'the call should have been refused').toBeDefined();
  return error as { code: string; reason?: string; field?: string; message: string };
}

async function startUpload(bytes: Buffer, options: { owner?: string; contentType?: string; declaredSize?: number } = {}) {
  return client.createUpload({
    ownerUserId: options.owner ?? ALICE,
    purpose: AssetPurpose.AI_INPUT,
    contentType: options.contentType ?? 'image/png',
    sizeBytes: options.declaredSize ?? bytes.length,
  });
}

async function put(upload: mediaV1.CreateUploadResponse, bytes: Buffer): Promise<number> {
  const response = await fetch(upload.uploadUrl, { method: 'PUT', headers: upload.uploadHeaders, body: bytes });
  return response.status;
}

async function countAssets(): Promise<number> {
  return Number((await db.query('SELECT count(*) AS n FROM media.assets')).rows[0].n);
}

function putServerAsset(header: Partial<mediaV1.PutServerAssetHeader>, bytes: Buffer, chunkSize = 16 * 1024) {
  function* messages(): Generator<mediaV1.PutServerAssetRequest> {
    yield { part: { $case: 'header', header: mediaV1.PutServerAssetHeader.fromPartial(header) } };
    for (let offset = 0; offset < bytes.length; offset += chunkSize) {
      yield { part: { $case: 'chunk', chunk: bytes.subarray(offset, offset + chunkSize) } };
    }
  }
  return internal.putServerAsset(messages());
}

async function readAsset(assetId: string): Promise<{ asset: mediaV1.Asset | undefined; bytes: Buffer }> {
  let asset: mediaV1.Asset | undefined;
  const chunks: Buffer[] = [];
  for await (const message of internal.readAsset({ assetId })) {
    if (message.part?.$case === 'asset') asset = message.part.asset;
    if (message.part?.$case === 'chunk') chunks.push(Buffer.from(message.part.chunk));
  }
  return { asset, bytes: Buffer.concat(chunks) };
}

describe('media - presigned two-step upload', () => {
  it('uploads a real PNG straight to the bucket, completes it, and serves the same bytes back', async () => {
    const bytes = await png(320, 240);
    const upload = await startUpload(bytes);
    expect(upload.asset).toMatchObject({
      ownerUserId: ALICE,
      purpose: AssetPurpose.AI_INPUT,
      status: AssetStatus.UPLOADING,
      sizeBytes: bytes.length,
    });
    expect(upload.uploadUrl).toContain(upload.asset!.id);
    expect(upload.uploadExpiresAt!.getTime()).toBeGreaterThan(Date.now());
    expect(await put(upload, bytes)).toBe(200);

    const { asset } = await client.completeUpload({ assetId: upload.asset!.id, ownerUserId: ALICE });
    expect(asset).toMatchObject({ status: AssetStatus.READY, width: 320, height: 240, sha256: sha256(bytes), contentType: 'image/png' });
    expect(asset!.readyAt).toBeInstanceOf(Date);

    const fetched = await client.getAsset({ assetId: upload.asset!.id, callerUserId: ALICE });
    expect(fetched.asset).toEqual(asset);
    const download = await fetch(fetched.downloadUrl!);
    expect(download.status).toBe(200);
    expect(sha256(Buffer.from(await download.arrayBuffer()))).toBe(sha256(bytes));
  });

  it('refuses a completion whose object has the wrong size, keeps the asset uploading, then accepts the right bytes', async () => {
    const bytes = await png(100, 100);
    const upload = await startUpload(bytes, { declaredSize: bytes.length + 10 });
    await put(upload, bytes);
    expect(await refusal(client.completeUpload({ assetId: upload.asset!.id, ownerUserId: ALICE }))).toMatchObject({
      code: ErrorCode.FAILED_PRECONDITION,
      reason: 'UPLOAD_SIZE_MISMATCH',
    });
    const after = await client.getAsset({ assetId: upload.asset!.id, callerUserId: ALICE });
    expect(after.asset!.status).toBe(AssetStatus.UPLOADING);
    expect(after.downloadUrl).toBeUndefined();
    const { rows } = await db.query('SELECT upload_error FROM media.assets WHERE id = $1', [upload.asset!.id]);
    expect(rows[0].upload_error).toMatch(/^UPLOAD_SIZE_MISMATCH/);

    const right = Buffer.concat([bytes, Buffer.alloc(10)]); // a PNG with trailing bytes still probes as the same PNG
    await put(upload, right);
    expect((await client.completeUpload({ assetId: upload.asset!.id, ownerUserId: ALICE })).asset!.status).toBe(AssetStatus.READY);
  });

  it('refuses a text file renamed .png', async () => {
    const bytes = Buffer.from('this is not an image, whatever its name says\n'.repeat(4));
    const upload = await startUpload(bytes);
    await put(upload, bytes);
    expect(await refusal(client.completeUpload({ assetId: upload.asset!.id, ownerUserId: ALICE }))).toMatchObject({
      code: ErrorCode.FAILED_PRECONDITION,
      reason: 'UPLOAD_NOT_AN_IMAGE',
    });
  });

  it('refuses bytes of another type than declared, and images outside 64–8192 px', async () => {
    const jpeg = await sharp(await png())
      .jpeg()
      .toBuffer();
    const mismatched = await startUpload(jpeg, { contentType: 'image/png' });
    await put(mismatched, jpeg);
    expect(await refusal(client.completeUpload({ assetId: mismatched.asset!.id, ownerUserId: ALICE }))).toMatchObject({
      reason: 'UPLOAD_CONTENT_TYPE_MISMATCH',
    });

    const tiny = await png(32, 200);
    const small = await startUpload(tiny);
    await put(small, tiny);
    expect(await refusal(client.completeUpload({ assetId: small.asset!.id, ownerUserId: ALICE }))).toMatchObject({
      reason: 'UPLOAD_DIMENSIONS_OUT_OF_RANGE',
    });
  });

  it('refuses a completion before any bytes were uploaded', async () => {
    const upload = await startUpload(await png());
    expect(await refusal(client.completeUpload({ assetId: upload.asset!.id, ownerUserId: ALICE }))).toMatchObject({
      reason: 'UPLOAD_OBJECT_MISSING',
    });
  });

  it('makes a second completion harmless, also when both race', async () => {
    const bytes = await png(128, 128);
    const upload = await startUpload(bytes);
    await put(upload, bytes);
    const results = await Promise.all(
      Array.from({ length: 5 }, () => client.completeUpload({ assetId: upload.asset!.id, ownerUserId: ALICE })),
    );
    expect(new Set(results.map((r) => r.asset!.readyAt!.getTime())).size).toBe(1);
    const again = await client.completeUpload({ assetId: upload.asset!.id, ownerUserId: ALICE });
    expect(again.asset).toEqual(results[0]!.asset);
  });

  it('serves the verified bytes after completion: a later PUT to the old upload URL changes nothing users see', async () => {
    const bytes = await png(160, 120);
    const upload = await startUpload(bytes);
    await put(upload, bytes);
    const { asset } = await client.completeUpload({ assetId: upload.asset!.id, ownerUserId: ALICE });
    const { rows } = await db.query('SELECT storage_key FROM media.assets WHERE id = $1', [upload.asset!.id]);
    expect(rows[0].storage_key).toMatch(new RegExp(`^verified/${upload.asset!.id}/`));
    expect(await store.head(`assets/${upload.asset!.id}`)).toBeUndefined(); // the upload key is gone

    // Same length, other bytes, through the still-valid presigned URL.
    const swapped = Buffer.alloc(bytes.length, 0x41);
    expect(await put(upload, swapped)).toBe(200);

    const fetched = await client.getAsset({ assetId: upload.asset!.id, callerUserId: ALICE });
    expect(fetched.asset!.sha256).toBe(sha256(bytes));
    expect(sha256(Buffer.from(await (await fetch(fetched.downloadUrl!)).arrayBuffer()))).toBe(sha256(bytes));
    const read = await readAsset(upload.asset!.id);
    expect(sha256(read.bytes)).toBe(sha256(bytes));
    expect(read.asset!.sha256).toBe(asset!.sha256);
    // Completing again answers the same asset; it does not re-read the swapped object.
    expect((await client.completeUpload({ assetId: upload.asset!.id, ownerUserId: ALICE })).asset).toEqual(asset);
    // Deleting the asset removes the served bytes and the stray PUT alike.
    await internal.deleteAsset({ assetId: upload.asset!.id, ownerUserId: ALICE });
    expect(await store.head(rows[0].storage_key)).toBeUndefined();
    expect(await store.head(`assets/${upload.asset!.id}`)).toBeUndefined();
  });

  it('checks a JPEG whose frame header follows large metadata, reading only a prefix', async () => {
    const jpeg = await sharp(await png(300, 200))
      .withMetadata({ exif: { IFD0: { ImageDescription: 'x'.repeat(60_000) } } })
      .jpeg()
      .toBuffer();
    const upload = await startUpload(jpeg, { contentType: 'image/jpeg' });
    await put(upload, jpeg);
    expect((await client.completeUpload({ assetId: upload.asset!.id, ownerUserId: ALICE })).asset).toMatchObject({
      width: 300,
      height: 200,
      sha256: sha256(jpeg),
    });
  });

  it('refuses a server put whose idempotency key holds NUL by field, before any SQL', async () => {
    const bytes = await png(80, 80);
    expect(
      await refusal(
        putServerAsset(
          {
            ownerUserId: ALICE,
            purpose: AssetPurpose.AI_OUTPUT,
            contentType: 'image/png',
            sizeBytes: bytes.length,
            idempotencyKey: 'job\u0000',
          },
          bytes,
        ),
      ),
    ).toMatchObject({ code: ErrorCode.INVALID_ARGUMENT, field: 'idempotency_key' });
  });

  it('refuses oversize, disallowed purposes and unsupported types, writing nothing', async () => {
    const before = await countAssets();
    const base = { ownerUserId: ALICE, purpose: AssetPurpose.POST_IMAGE, contentType: 'image/png', sizeBytes: 1000 };
    expect(await refusal(client.createUpload({ ...base, sizeBytes: 20 * 1024 * 1024 + 1 }))).toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
      field: 'size_bytes',
    });
    expect(await refusal(client.createUpload({ ...base, sizeBytes: 0 }))).toMatchObject({ field: 'size_bytes' });
    expect(await refusal(client.createUpload({ ...base, purpose: AssetPurpose.AI_OUTPUT }))).toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
      field: 'purpose',
    });
    expect(await refusal(client.createUpload({ ...base, purpose: AssetPurpose.UNSPECIFIED }))).toMatchObject({ field: 'purpose' });
    expect(await refusal(client.createUpload({ ...base, contentType: 'image/gif' }))).toMatchObject({ field: 'content_type' });
    expect(await refusal(client.createUpload({ ...base, ownerUserId: '' }))).toMatchObject({ field: 'owner_user_id' });
    expect(await countAssets()).toBe(before);
  });

  it('accepts every user purpose and the three image types', async () => {
    for (const purpose of [AssetPurpose.POST_IMAGE, AssetPurpose.USER_AVATAR, AssetPurpose.PET_AVATAR, AssetPurpose.AI_INPUT]) {
      const upload = await client.createUpload({ ownerUserId: ALICE, purpose, contentType: 'image/webp', sizeBytes: 10 });
      expect(upload.asset!.purpose).toBe(purpose);
    }
    const webp = await sharp(await png(90, 90))
      .webp()
      .toBuffer();
    const upload = await client.createUpload({
      ownerUserId: ALICE,
      purpose: AssetPurpose.POST_IMAGE,
      contentType: 'image/webp',
      sizeBytes: webp.length,
    });
    await put(upload, webp);
    expect((await client.completeUpload({ assetId: upload.asset!.id, ownerUserId: ALICE })).asset).toMatchObject({ width: 90, height: 90 });
  });
});

describe("media - another user's asset does not exist", () => {
  it('answers NOT_FOUND to every user call on it', async () => {
    const bytes = await png();
    const upload = await startUpload(bytes, { owner: ALICE });
    await put(upload, bytes);
    const id = upload.asset!.id;
    for (const call of [
      () => client.completeUpload({ assetId: id, ownerUserId: BOB }),
      () => client.getAsset({ assetId: id, callerUserId: BOB }),
      () => internal.deleteAsset({ assetId: id, ownerUserId: BOB }),
    ]) {
      expect(await refusal(call())).toMatchObject({ code: ErrorCode.NOT_FOUND, reason: 'ASSET_NOT_FOUND', message: 'asset not found' });
    }
    const unknown = await refusal(client.getAsset({ assetId: '019a0000-0000-7000-8000-0000000000aa', callerUserId: BOB }));
    expect(unknown).toMatchObject({ code: ErrorCode.NOT_FOUND, message: 'asset not found' });
    expect((await client.completeUpload({ assetId: id, ownerUserId: ALICE })).asset!.status).toBe(AssetStatus.READY);
    expect(await refusal(client.getAsset({ assetId: 'nope', callerUserId: ALICE }))).toMatchObject({ field: 'asset_id' });
  });

  it('lets services see any asset through GetAssetInternal', async () => {
    const bytes = await png();
    const upload = await startUpload(bytes, { owner: BOB });
    await put(upload, bytes);
    await client.completeUpload({ assetId: upload.asset!.id, ownerUserId: BOB });
    const seen = await internal.getAssetInternal({ assetId: upload.asset!.id, includeDownloadUrl: true });
    expect(seen.asset!.ownerUserId).toBe(BOB);
    expect(sha256(Buffer.from(await (await fetch(seen.downloadUrl!)).arrayBuffer()))).toBe(sha256(bytes));
    const withoutUrl = await internal.getAssetInternal({ assetId: upload.asset!.id, includeDownloadUrl: false });
    expect(withoutUrl.downloadUrl).toBeUndefined();
  });

  it('answers many ids in one GetAssetsInternal for jobs: the assets that exist, whatever their owner or status', async () => {
    const bytes = await png();
    const ready = await startUpload(bytes, { owner: BOB });
    await put(ready, bytes);
    await client.completeUpload({ assetId: ready.asset!.id, ownerUserId: BOB });
    const uploading = await startUpload(bytes, { owner: ALICE });
    const absent = '019a0000-0000-7000-8000-0000000000ab';
    const jobs = await testClient(mediaV1.MediaServiceClient, address, 'jobs');
    try {
      const { assets } = await jobs.getAssetsInternal({ assetIds: [ready.asset!.id, absent, uploading.asset!.id, ready.asset!.id] });
      expect(assets.map((asset) => [asset.id, asset.ownerUserId, asset.status]).sort()).toEqual(
        [
          [ready.asset!.id, BOB, AssetStatus.READY],
          [uploading.asset!.id, ALICE, AssetStatus.UPLOADING],
        ].sort(),
      );
      expect((await jobs.getAssetsInternal({ assetIds: [] })).assets).toEqual([]);
      expect(await refusal(jobs.getAssetsInternal({ assetIds: [absent, 'nope'] }))).toMatchObject({
        code: ErrorCode.INVALID_ARGUMENT,
        field: 'asset_ids[1]',
      });
      expect(await refusal(jobs.getAssetsInternal({ assetIds: Array.from({ length: 501 }, () => absent) }))).toMatchObject({
        field: 'asset_ids',
      });
      // Only jobs: the gateway may not list assets by id.
      expect(await refusal(client.getAssetsInternal({ assetIds: [absent] }))).toMatchObject({ code: ErrorCode.PERMISSION_DENIED });
    } finally {
      jobs.close();
    }
  });
});

describe('media - server-written assets', () => {
  it('stores streamed bytes as an ai_output of the user, readable back byte for byte', async () => {
    const bytes = await png(512, 384, { r: 200, g: 30, b: 30 });
    const { asset, created } = await putServerAsset(
      { ownerUserId: ALICE, purpose: AssetPurpose.AI_OUTPUT, contentType: 'image/png', sizeBytes: bytes.length, idempotencyKey: 'job-1' },
      bytes,
    );
    expect(created).toBe(true);
    expect(asset).toMatchObject({
      ownerUserId: ALICE,
      purpose: AssetPurpose.AI_OUTPUT,
      status: AssetStatus.READY,
      width: 512,
      height: 384,
    });
    const read = await readAsset(asset!.id);
    expect(read.asset).toEqual(asset);
    expect(sha256(read.bytes)).toBe(sha256(bytes));
    expect((await client.getAsset({ assetId: asset!.id, callerUserId: ALICE })).asset!.sha256).toBe(sha256(bytes));
  });

  it('returns the first asset for a repeated idempotency key instead of storing a second one', async () => {
    const bytes = await png(256, 256);
    const header = {
      ownerUserId: BOB,
      purpose: AssetPurpose.AI_OUTPUT,
      contentType: 'image/png',
      sizeBytes: bytes.length,
      idempotencyKey: 'job-2',
    };
    const first = await putServerAsset(header, bytes);
    const second = await putServerAsset(header, bytes);
    expect(second).toEqual({ asset: first.asset, created: false });
    const concurrent = await Promise.all([
      putServerAsset({ ...header, idempotencyKey: 'job-3' }, bytes),
      putServerAsset({ ...header, idempotencyKey: 'job-3' }, bytes),
    ]);
    expect(concurrent[0]!.asset!.id).toBe(concurrent[1]!.asset!.id);
    const { rows } = await db.query(
      `SELECT count(*)::int AS n FROM media.assets WHERE owner_user_id = $1 AND idempotency_key IN ('job-2', 'job-3')`,
      [BOB],
    );
    expect(rows[0].n).toBe(2);
  });

  it('refuses a user purpose, a missing header, a byte count that differs and bytes that are no image', async () => {
    const bytes = await png();
    const base = { ownerUserId: ALICE, purpose: AssetPurpose.AI_OUTPUT, contentType: 'image/png', sizeBytes: bytes.length };
    const before = await countAssets();
    expect(await refusal(putServerAsset({ ...base, purpose: AssetPurpose.POST_IMAGE }, bytes))).toMatchObject({ field: 'purpose' });
    expect(await refusal(putServerAsset({ ...base, sizeBytes: bytes.length + 1 }, bytes))).toMatchObject({ field: 'size_bytes' });
    expect(await refusal(putServerAsset({ ...base, sizeBytes: bytes.length - 1 }, bytes))).toMatchObject({ field: 'chunk' });
    const text = Buffer.from('not an image at all, just text');
    expect(await refusal(putServerAsset({ ...base, sizeBytes: text.length }, text))).toMatchObject({
      code: ErrorCode.FAILED_PRECONDITION,
      reason: 'UPLOAD_NOT_AN_IMAGE',
    });
    const headless = await refusal(internal.putServerAsset([{ part: { $case: 'chunk', chunk: bytes } }]));
    expect(headless).toMatchObject({ code: ErrorCode.INVALID_ARGUMENT, field: 'header' });
    expect(await countAssets()).toBe(before);
  });

  it('refuses to stream an asset that is not ready', async () => {
    const upload = await startUpload(await png());
    const error = await readAsset(upload.asset!.id).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ErrorCode.FAILED_PRECONDITION, reason: 'ASSET_NOT_READY' });
  });
});

describe('media - delete', () => {
  it('soft-deletes the row, removes the object, and is idempotent', async () => {
    const bytes = await png();
    const { asset } = await putServerAsset(
      {
        ownerUserId: ALICE,
        purpose: AssetPurpose.AI_OUTPUT,
        contentType: 'image/png',
        sizeBytes: bytes.length,
        idempotencyKey: 'orphan-1',
      },
      bytes,
    );
    const { rows } = await db.query('SELECT storage_key FROM media.assets WHERE id = $1', [asset!.id]);
    expect(await store.head(rows[0].storage_key)).toBeDefined();

    const deleted = await internal.deleteAsset({ assetId: asset!.id, ownerUserId: ALICE });
    expect(deleted.asset).toMatchObject({ status: AssetStatus.DELETED });
    expect(deleted.asset!.deletedAt).toBeInstanceOf(Date);
    expect(await store.head(rows[0].storage_key)).toBeUndefined();
    expect(await refusal(client.getAsset({ assetId: asset!.id, callerUserId: ALICE }))).toMatchObject({ code: ErrorCode.NOT_FOUND });
    expect((await internal.deleteAsset({ assetId: asset!.id })).asset).toEqual(deleted.asset);

    // The key is free again: a new put with it stores a new asset.
    const again = await putServerAsset(
      {
        ownerUserId: ALICE,
        purpose: AssetPurpose.AI_OUTPUT,
        contentType: 'image/png',
        sizeBytes: bytes.length,
        idempotencyKey: 'orphan-1',
      },
      bytes,
    );
    expect(again.created).toBe(true);
    expect(again.asset!.id).not.toBe(asset!.id);
  });
});

describe('media - stale upload sweeper', () => {
  it('removes old uploading assets and their objects, leaves fresh and ready ones, and is safe to run concurrently', async () => {
    const bytes = await png();
    const stale = await Promise.all(Array.from({ length: 5 }, () => startUpload(bytes)));
    for (const upload of stale) await put(upload, bytes);
    const fresh = await startUpload(bytes);
    await db.query(`UPDATE media.assets SET created_at = now() - interval '2 hours' WHERE id = ANY($1)`, [stale.map((u) => u.asset!.id)]);
    const staleKeys = (await db.query('SELECT storage_key FROM media.assets WHERE id = ANY($1)', [stale.map((u) => u.asset!.id)])).rows.map(
      (r: { storage_key: string }) => r.storage_key,
    );
    const readyBefore = (await db.query(`SELECT count(*)::int AS n FROM media.assets WHERE status = 'ready'`)).rows[0].n;
    // A completion that died between its server-side copy and marking the row ready left a copy.
    const leftover = `verified/${stale[0]!.asset!.id}/019a0000-0000-7000-8000-000000000001`;
    await store.put(leftover, bytes, 'image/png');

    const [a, b] = await Promise.all([sweepStaleUploads(pool, store, 3_600_000, 2), sweepStaleUploads(pool, store, 3_600_000, 2)]);
    expect(a + b).toBe(5);
    const { rows: left } = await db.query('SELECT id FROM media.assets WHERE id = ANY($1)', [stale.map((u) => u.asset!.id)]);
    expect(left).toEqual([]);
    for (const key of [...staleKeys, leftover]) expect(await store.head(key)).toBeUndefined();
    expect((await client.getAsset({ assetId: fresh.asset!.id, callerUserId: ALICE })).asset!.status).toBe(AssetStatus.UPLOADING);
    expect((await db.query(`SELECT count(*)::int AS n FROM media.assets WHERE status = 'ready'`)).rows[0].n).toBe(readyBefore);
  });
});

describe('media - the database guards asset invariants', () => {
  it('refuses a ready row without its hash and a deleted row without its time', async () => {
    const insert = (status: string, extra: string) =>
      db.query(
        `INSERT INTO media.assets (id, owner_user_id, purpose, content_type, size_bytes, storage_key, status ${extra ? ', ' + extra.split('=')[0] : ''})
         VALUES (gen_random_uuid(), 'u', 'post_image', 'image/png', 10, gen_random_uuid()::text, $1 ${extra ? ', ' + extra.split('=')[1] : ''})`,
        [status],
      );
    await expect(insert('ready', 'ready_at=now()')).rejects.toMatchObject({ constraint: 'assets_status_timestamps' });
    await expect(insert('deleted', '')).rejects.toMatchObject({ constraint: 'assets_status_timestamps' });
    await expect(insert('uploading', 'ready_at=now()')).rejects.toMatchObject({ constraint: 'assets_status_timestamps' });
    await expect(
      db.query(
        `INSERT INTO media.assets (id, owner_user_id, purpose, content_type, size_bytes, storage_key, status)
         VALUES (gen_random_uuid(), 'u', 'ai_output', 'image/png', 30000000, 'k-big', 'uploading')`,
      ),
    ).rejects.toMatchObject({ constraint: 'assets_size_range' });
  });

  it('holds image sides to the limits of @atelier/images: the CHECKs of the migrations name the same numbers', async () => {
    expect(await rangeChecksOf(db, 'media.assets')).toMatchObject({
      assets_width_range: [MIN_IMAGE_SIDE_PX, MAX_IMAGE_SIDE_PX],
      assets_height_range: [MIN_IMAGE_SIDE_PX, MAX_IMAGE_SIDE_PX],
    });
  });
});

describe('media - health and reflection', () => {
  it('answers SERVING and lists atelier.media.v1.MediaService', async () => {
    expect(await checkHealth(`127.0.0.1:${server.healthPort}`, MEDIA_SERVICE_NAME)).toBe('SERVING');
    expect(await listReflectedServices(address, await testSecurity('gateway'), 'media')).toEqual([MEDIA_SERVICE_NAME]);
  });

  it("keeps reading any user's asset and writing server assets to the services that run jobs", async () => {
    const asGateway = (await client
      .getAssetInternal({ assetId: '00000000-0000-4000-8000-000000000000', includeDownloadUrl: false })
      .catch((error: unknown) => error)) as { code?: string };
    expect(asGateway.code).toBe(ErrorCode.PERMISSION_DENIED);
    const community = await testClient(mediaV1.MediaServiceClient, address, 'community');
    try {
      await expect(
        community.createUpload({ ownerUserId: ALICE, purpose: AssetPurpose.AI_INPUT, contentType: 'image/png', sizeBytes: 10 }),
      ).rejects.toMatchObject({
        code: ErrorCode.PERMISSION_DENIED,
      });
    } finally {
      community.close();
    }
  });
});

describe('media - outputs of jobs that end without them', () => {
  it('deletes the stored output (row and object) when the job fails or is cancelled, and nothing else', async () => {
    const topology = jobsTopology(natsTestPrefix());
    const nats = await connectNats({ servers: testNatsUrl(), name: 'media-cleanup-test' });
    // What the jobs service says of each job (JobExecutionService.GetJobStatus): events are only hints.
    const jobStatuses = new Map<string, jobsV1.JobStatus>();
    const jobStatus = async (jobId: string) => jobStatuses.get(jobId);
    const cleanup = new JobOutputCleanup({ pool, store, topology, streamReplicas: 1, logger, jobStatus });
    try {
      await cleanup.start(nats);
      const bytes = await png();
      const output = async (jobId: string) =>
        (
          await putServerAsset(
            {
              ownerUserId: ALICE,
              purpose: AssetPurpose.AI_OUTPUT,
              contentType: 'image/png',
              sizeBytes: bytes.length,
              idempotencyKey: jobId,
            },
            bytes,
          )
        ).asset!;
      const [failed, cancelled, succeeded, running, forgedSucceeded, unknown] = (await Promise.all(
        Array.from({ length: 6 }, () => output(randomUUID())),
      )) as [mediaV1.Asset, mediaV1.Asset, mediaV1.Asset, mediaV1.Asset, mediaV1.Asset, mediaV1.Asset];
      const jobIdOf = async (asset: mediaV1.Asset) =>
        (await db.query('SELECT idempotency_key FROM media.assets WHERE id = $1', [asset.id])).rows[0].idempotency_key as string;
      jobStatuses.set(await jobIdOf(failed), jobsV1.JobStatus.FAILED);
      jobStatuses.set(await jobIdOf(cancelled), jobsV1.JobStatus.CANCELLED);
      jobStatuses.set(await jobIdOf(succeeded), jobsV1.JobStatus.SUCCEEDED);
      jobStatuses.set(await jobIdOf(running), jobsV1.JobStatus.RUNNING);
      jobStatuses.set(await jobIdOf(forgedSucceeded), jobsV1.JobStatus.SUCCEEDED);
      const announce = async (asset: mediaV1.Asset, status: 'failed' | 'cancelled' | 'succeeded') => {
        const { rows } = await db.query('SELECT idempotency_key FROM media.assets WHERE id = $1', [asset.id]);
        // As the jobs outbox relay publishes it (jobs db/outbox-payload-sql.ts): proto3 JSON of JobLifecycleEvent.
        const event = { jobId: rows[0].idempotency_key, jobType: 'image.stylize', eventType: `job.${status}`, attempt: 3 };
        await jetstream(nats).publish(topology.eventSubject(status), JSON.stringify(event));
      };
      await announce(failed, 'failed');
      await announce(cancelled, 'cancelled');
      await announce(succeeded, 'succeeded');
      // Forged: jobs says the job runs, succeeded, or does not exist.
      await announce(running, 'failed');
      await announce(forgedSucceeded, 'cancelled');
      await announce(unknown, 'failed');

      const statusOf = async (id: string) => (await db.query('SELECT status, storage_key FROM media.assets WHERE id = $1', [id])).rows[0];
      const jsm = await jetstreamManager(nats);
      const deadline = Date.now() + 10_000;
      for (;;) {
        const [failedInfo, cancelledInfo] = await Promise.all(
          (['failed', 'cancelled'] as const).map((state) => jsm.consumers.info(topology.eventsStream, outputCleanupConsumer(state))),
        );
        const settled = [failedInfo!, cancelledInfo!].every(
          (info) => info.num_pending + info.num_ack_pending === 0 && info.delivered.consumer_seq === (info === failedInfo ? 3 : 2),
        );
        if (settled) break;
        if (Date.now() > deadline) throw new Error('the cleanup consumers did not settle the failed and cancelled events');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      for (const asset of [failed, cancelled]) {
        const row = await statusOf(asset.id);
        expect(row.status).toBe('deleted');
        expect(await store.head(row.storage_key)).toBeUndefined();
      }
      // A succeeded job keeps its output, and a forged event deletes nothing.
      for (const asset of [succeeded, running, forgedSucceeded, unknown]) {
        const kept = await statusOf(asset.id);
        expect(kept.status).toBe('ready');
        expect(await store.head(kept.storage_key)).toBeDefined();
      }
    } finally {
      await cleanup.stop();
      await deleteJobStreams(await jetstreamManager(nats), topology);
      await nats.close();
    }
  });
});

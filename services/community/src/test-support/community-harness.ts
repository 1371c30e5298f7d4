import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import sharp from 'sharp';
import { catalogV1, commonV1, communityV1, jobsExecutionV1, jobsV1, mediaV1 } from '@atelier/contracts';
import { fromServiceError, type PromiseClient } from '@atelier/grpc';
import { createLogger } from '@atelier/logging';
import { connectNats, deleteJobStreams, jetstreamManager, jobsTopology } from '@atelier/nats';
import {
  createTestDatabase,
  natsTestPrefix,
  startGrpcServiceProcess,
  testNatsUrl,
  type ServiceProcess,
  type TestDatabase,
  testClient,
} from '@atelier/testing';
import { startCommunityApp, type CommunityApp } from '../community-app.js';
import { communityTestConfig } from './lone-community.js';
import { createCommunityOrm, migrateCommunity } from '../db/community-orm.js';

/**
 * Everything a community integration test needs, all real: a database of its own, catalog,
 * media (with its own S3-protocol store) and jobs (with a NATS stream prefix of its own) as
 * processes, and the community service under test in-process.
 */
export interface CommunityHarness {
  database: TestDatabase;
  db: pg.Client;
  app: CommunityApp;
  address: string;
  community: PromiseClient<communityV1.CommunityServiceClient>;
  /** Media as the gateway calls it (uploads, a user's own assets). */
  media: PromiseClient<mediaV1.MediaServiceClient>;
  /** Media as the worker calls it (server-written outputs, deletes). */
  mediaAsWorker: PromiseClient<mediaV1.MediaServiceClient>;
  jobs: PromiseClient<jobsV1.JobsServiceClient>;
  execution: PromiseClient<jobsExecutionV1.JobExecutionServiceClient>;
  catalog: PromiseClient<catalogV1.CatalogServiceClient>;
  stop(): Promise<void>;
}

export async function startCommunityHarness(): Promise<CommunityHarness> {
  const database = await createTestDatabase();
  const s3Directory = mkdtempSync(path.join(tmpdir(), 'atelier-community-s3-'));
  const streamPrefix = natsTestPrefix();
  const processes: ServiceProcess[] = [];
  const removeStreams = async () => {
    const nats = await connectNats({ servers: testNatsUrl(), name: 'community-test' });
    try {
      await deleteJobStreams(await jetstreamManager(nats), jobsTopology(streamPrefix));
    } finally {
      await nats.close();
    }
  };
  try {
    const [catalogProcess, mediaProcess] = await Promise.all([
      startGrpcServiceProcess('catalog', { DATABASE_URL: database.url }),
      startGrpcServiceProcess('media', { DATABASE_URL: database.url, S3_EMBEDDED_PORT: '0', S3_EMBEDDED_DIR: s3Directory }),
    ]);
    processes.push(catalogProcess, mediaProcess);
    const jobsProcess = await startGrpcServiceProcess('jobs', {
      DATABASE_URL: database.url,
      NATS_URL: testNatsUrl(),
      NATS_STREAM_PREFIX: streamPrefix,
      CATALOG_ADDR: catalogProcess.address,
      MEDIA_ADDR: mediaProcess.address,
      QUOTA_MAX_IN_FLIGHT: '10000',
      QUOTA_DAILY_LIMIT: '1000000',
      QUOTA_MONTHLY_LIMIT: '1000000',
      DB_POOL_MAX: '4',
    });
    processes.push(jobsProcess);

    const orm = await createCommunityOrm(database.url);
    await migrateCommunity(orm, database.url);
    await orm.close();

    const logger = createLogger({ service: 'community-test', level: process.env.TEST_LOG_LEVEL ?? 'silent' });
    const app = await startCommunityApp(
      await communityTestConfig(database.url, { MEDIA_ADDR: mediaProcess.address, JOBS_ADDR: jobsProcess.address }),
      logger,
      { host: '127.0.0.1' },
    );
    const db = new pg.Client({ connectionString: database.url });
    await db.connect();
    const address = `127.0.0.1:${app.server.port}`;
    const options = { defaultDeadlineMs: 15_000 };
    const harness: CommunityHarness = {
      database,
      db,
      app,
      address,
      community: await testClient(communityV1.CommunityServiceClient, address, 'gateway', options),
      media: await testClient(mediaV1.MediaServiceClient, mediaProcess.address, 'gateway', options),
      mediaAsWorker: await testClient(mediaV1.MediaServiceClient, mediaProcess.address, 'worker', options),
      jobs: await testClient(jobsV1.JobsServiceClient, jobsProcess.address, 'gateway', options),
      execution: await testClient(jobsExecutionV1.JobExecutionServiceClient, jobsProcess.address, 'worker', options),
      catalog: await testClient(catalogV1.CatalogServiceClient, catalogProcess.address, 'gateway', options),
      async stop() {
        for (const client of [harness.community, harness.media, harness.mediaAsWorker, harness.jobs, harness.execution, harness.catalog])
          client.close();
        await app.stop(100);
        await db.end();
        await Promise.all(processes.map((p) => p.stop()));
        await removeStreams();
        rmSync(s3Directory, { recursive: true, force: true });
        await database.drop();
      },
    };
    return harness;
  } catch (error) {
    await Promise.all(processes.map((p) => p.kill()));
    await removeStreams().catch(() => {});
    rmSync(s3Directory, { recursive: true, force: true });
    await database.drop();
    throw error;
  }
}

const pngOf = (size: number, background: { r: number; g: number; b: number }) =>
  sharp({ create: { width: size, height: size, channels: 3, background } })
    .png()
    .toBuffer();

/**
 * Starts an upload through media's two-step flow; with `complete` (the default) also PUTs a real
 * PNG and completes it, so the asset is ready.
 */
export async function uploadImage(
  media: PromiseClient<mediaV1.MediaServiceClient>,
  userId: string,
  options: { purpose?: mediaV1.AssetPurpose; complete?: boolean } = {},
): Promise<string> {
  const bytes = await pngOf(96, { r: 90, g: 140, b: 220 });
  const upload = await media.createUpload({
    ownerUserId: userId,
    purpose: options.purpose ?? mediaV1.AssetPurpose.POST_IMAGE,
    contentType: 'image/png',
    sizeBytes: bytes.length,
  });
  if (options.complete === false) return upload.asset!.id;
  const put = await fetch(upload.uploadUrl, { method: 'PUT', headers: upload.uploadHeaders, body: bytes });
  if (!put.ok) throw new Error(`upload PUT failed: ${put.status}`);
  await media.completeUpload({ assetId: upload.asset!.id, ownerUserId: userId });
  return upload.asset!.id;
}

/** Stores a generated-looking PNG as the user's ai_output through media's PutServerAsset stream, as the worker does. */
export async function putOutputImage(
  media: PromiseClient<mediaV1.MediaServiceClient>,
  userId: string,
  idempotencyKey: string,
): Promise<{ asset: mediaV1.Asset; sha256: string }> {
  const bytes = await pngOf(128, { r: 250, g: 60, b: 90 });
  const asset = await new Promise<mediaV1.Asset>((resolve, reject) => {
    const call = media.raw.putServerAsset((error, response) => (error ? reject(fromServiceError(error)) : resolve(response.asset!)));
    call.write({
      part: {
        $case: 'header',
        header: mediaV1.PutServerAssetHeader.fromPartial({
          ownerUserId: userId,
          purpose: mediaV1.AssetPurpose.AI_OUTPUT,
          contentType: 'image/png',
          sizeBytes: bytes.length,
          idempotencyKey,
        }),
      },
    });
    call.write({ part: { $case: 'chunk', chunk: bytes } });
    call.end();
  });
  return { asset, sha256: createHash('sha256').update(bytes).digest('hex') };
}

/** Submits an image.stylize job for the user with the seeded stylize model and a style; it stays queued (no worker runs). */
export async function queuedStylizeJob(h: CommunityHarness, userId: string, idempotencyKey: string): Promise<jobsV1.Job> {
  const { models, styles } = await h.catalog.getCatalog({ mediaKind: commonV1.MediaKind.IMAGE });
  const stylizer = models.find((m) => m.jobType === 'image.stylize')!;
  const style = styles[0]!;
  const inputAssetId = await uploadImage(h.media, userId, { purpose: mediaV1.AssetPurpose.AI_INPUT });
  const { job } = await h.jobs.createJob(
    jobsV1.CreateJobRequest.fromPartial({
      userId,
      idempotencyKey,
      jobType: 'image.stylize',
      modelId: stylizer.id,
      styleId: style.id,
      inputAssetId,
      prompt: 'my cat, but more so',
    }),
  );
  return job!;
}

/**
 * A succeeded image.stylize job of the user, made without a worker by acting as one through the
 * real execution API: claim it, store its output with media, complete it with that output.
 */
export async function succeededJob(h: CommunityHarness, userId: string, idempotencyKey: string): Promise<jobsV1.Job> {
  const queued = await queuedStylizeJob(h, userId, idempotencyKey);
  const workerId = `community-test-worker-${process.pid}`;
  const { outcome } = await h.execution.claimJob({ jobId: queued.id, workerId });
  if (outcome !== jobsExecutionV1.ClaimOutcome.CLAIMED) throw new Error(`could not claim job ${queued.id}: ${outcome}`);
  const output = await putOutputImage(h.mediaAsWorker, userId, `job-output:${queued.id}`);
  const { job } = await h.execution.completeJob({
    jobId: queued.id,
    workerId,
    outputAssetId: output.asset.id,
    outputSha256: output.sha256,
  });
  if (job?.status !== jobsV1.JobStatus.SUCCEEDED || job.outputAssetId !== output.asset.id) throw new Error('the job did not succeed');
  return job;
}

/** Resolves with what a promise rejected with, failing if it resolved. */
export async function refusal(promise: Promise<unknown>): Promise<{ code: string; reason?: string; field?: string; message: string }> {
  const outcome = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!outcome) throw new Error('the call should have been refused');
  return outcome as never;
}

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import sharp from 'sharp';
import { catalogV1, commonV1, jobsAdminV1, jobsExecutionV1, jobsV1, mediaV1 } from '@atelier/contracts';
import type { PromiseClient } from '@atelier/grpc';
import { createLogger } from '@atelier/logging';
import { connectNats, deleteJobStreams, jetstreamManager, jobsTopology, type JobsTopology, type NatsConnection } from '@atelier/nats';
import {
  createTestDatabase,
  natsTestPrefix,
  startGrpcServiceProcess,
  testNatsUrl,
  type ServiceProcess,
  type TestDatabase,
  testClient,
  testIdentityEnv,
  TEST_UPSCALE_MODEL,
  testCredentialsKekFile,
  testProductEventsKey,
  TEST_OPERATOR_ACTOR,
} from '@atelier/testing';
import type { JobsConfig } from '../config.js';
import { createJobsOrm, migrateJobs } from '../db/jobs-orm.js';
import { startJobsApp, type JobsApp, type JobsAppConfig } from '../jobs-app.js';

/**
 * Everything a jobs integration test needs, all real: a database of its own, the catalog and
 * media services as processes (media with its own S3-protocol store), a NATS stream prefix of
 * its own, and the jobs service under test in-process.
 */
export interface JobsHarness {
  database: TestDatabase;
  db: pg.Client;
  topology: JobsTopology;
  nats: NatsConnection;
  app: JobsApp;
  address: string;
  jobs: PromiseClient<jobsV1.JobsServiceClient>;
  execution: PromiseClient<jobsExecutionV1.JobExecutionServiceClient>;
  admin: PromiseClient<jobsAdminV1.JobsAdminServiceClient>;
  /** Media as the gateway calls it (uploads, a user's own assets). */
  media: PromiseClient<mediaV1.MediaServiceClient>;
  /** Media as the worker calls it (server-written outputs, deletes). */
  mediaAsWorker: PromiseClient<mediaV1.MediaServiceClient>;
  catalog: PromiseClient<catalogV1.CatalogServiceClient>;
  /** pet-directory-sim, when options.petDirectory started it. */
  petDirectory?: ServiceProcess;
  config: JobsAppConfig;
  /** Restarts the jobs service under test with other settings (same database and streams). */
  restart(overrides?: Partial<JobsAppConfig>): Promise<void>;
  /** Another jobs replica in this process, on the same database and streams, with its clients. */
  startReplica(): Promise<JobsReplica>;
  stop(): Promise<void>;
}

export interface JobsReplica {
  app: JobsApp;
  jobs: PromiseClient<jobsV1.JobsServiceClient>;
  execution: PromiseClient<jobsExecutionV1.JobExecutionServiceClient>;
  stop(): Promise<void>;
}

export interface JobsHarnessOptions {
  /** Start catalog and media (default true). */
  peers?: boolean;
  /**
   * Start pet-directory-sim with these variables (PET_DIRECTORY_SEED: the pets of the test's
   * users); without it jobs is pointed at an address where nothing listens.
   */
  petDirectory?: Record<string, string>;
}

export async function startJobsHarness(overrides: Partial<JobsConfig> = {}, options: JobsHarnessOptions = {}): Promise<JobsHarness> {
  const database = await createTestDatabase();
  const s3Directory = mkdtempSync(path.join(tmpdir(), 'atelier-jobs-s3-'));
  const processes: ServiceProcess[] = [];
  const prefix = natsTestPrefix();
  try {
    const [catalogProcess, mediaProcess, petDirectoryProcess] = await Promise.all([
      ...(options.peers !== false
        ? [
            // On this run's prefix: jobs hears its change notices.
            startGrpcServiceProcess('catalog', { DATABASE_URL: database.url, NATS_URL: testNatsUrl(), NATS_STREAM_PREFIX: prefix }),
            startGrpcServiceProcess('media', { DATABASE_URL: database.url, S3_EMBEDDED_PORT: '0', S3_EMBEDDED_DIR: s3Directory }),
          ]
        : [undefined, undefined]),
      options.petDirectory ? startGrpcServiceProcess('pet-directory-sim', options.petDirectory) : undefined,
    ]);
    for (const started of [catalogProcess, mediaProcess, petDirectoryProcess]) if (started) processes.push(started);

    const orm = await createJobsOrm(database.url);
    await migrateJobs(orm, database.url);
    await orm.close();

    let config: JobsAppConfig = {
      ...(await testIdentityEnv('jobs')),
      GRPC_PORT: 0,
      GRPC_HEALTH_PORT: 0,
      GRPC_REFLECTION: true,
      DATABASE_URL: database.url,
      NATS_URL: testNatsUrl(),
      NATS_STREAM_PREFIX: prefix,
      NATS_STREAM_REPLICAS: 1,
      NATS_USER: undefined,
      NATS_PASSWORD: undefined,
      NATS_TOKEN: undefined,
      ACCOUNT_DELETION_ACK_WAIT_MS: 60_000,
      PRODUCT_EVENTS_USER_KEY: testProductEventsKey(),
      CREDENTIALS_KEK_FILE: testCredentialsKekFile(),
      CREDENTIALS_MAX_PER_USER: 5,
      CATALOG_ADDR: catalogProcess?.address ?? '127.0.0.1:1',
      MEDIA_ADDR: mediaProcess?.address ?? '127.0.0.1:1',
      CATALOG_CACHE_TTL_MS: 30_000,
      CATALOG_CACHE_MAX_ENTRIES: 10_000,
      PET_DIRECTORY_ADDR: petDirectoryProcess?.address ?? '127.0.0.1:1',
      PET_DIRECTORY_IDENTITY: 'pet-directory-sim',
      PET_DIRECTORY_DEADLINE_MS: 1_000,
      PET_DIRECTORY_CACHE_TTL_MS: 30_000,
      PET_DIRECTORY_CACHE_MAX_ENTRIES: 10_000,
      QUOTA_DAILY_LIMIT: 20,
      QUOTA_MONTHLY_LIMIT: 300,
      QUOTA_MAX_IN_FLIGHT: 2,
      QUOTA_IN_FLIGHT_RETRY_AFTER_SECONDS: 10,
      LEASE_TTL_MS: 60_000,
      REAPER_INTERVAL_MS: 3_600_000,
      DISPATCH_STALE_AFTER_MS: 600_000,
      DISPATCH_SWEEP_INTERVAL_MS: 3_600_000,
      PROVIDER_GATE_WATCH_INTERVAL_MS: 3_600_000,
      START_DEADLINE_SWEEP_INTERVAL_MS: 3_600_000,
      OUTBOX_POLL_INTERVAL_MS: 200,
      OUTBOX_LOCK_TIMEOUT_MS: 30_000,
      OUTBOX_MAX_ATTEMPTS: 10,
      WATCH_REREAD_MS: 15_000,
      DB_POOL_MAX: 10,
      OUTBOX_RETENTION_MS: 24 * 3_600_000,
      JOB_EVENTS_RETENTION_DAYS: 90,
      RETENTION_INTERVAL_MS: 3_600_000,
      RETENTION_BATCH_SIZE: 1_000,
      RETENTION_REDACTION_BATCH_SIZE: 200,
      RETENTION_BATCH_PAUSE_MS: 100,
      RECONCILIATION_SETTLE_MS: 120_000,
      RECONCILIATION_MAX_WINDOW_MS: 3_600_000,
      RECONCILIATION_LEASE_MS: 120_000,
      ...overrides,
    };
    const logger = createLogger({ service: 'jobs-test', level: process.env.TEST_LOG_LEVEL ?? 'silent' });
    let app = await startJobsApp(config, logger, { host: '127.0.0.1' });
    const nats = await connectNats({ servers: testNatsUrl(), name: 'jobs-test' });
    const db = new pg.Client({ connectionString: database.url });
    await db.connect();

    const connect = async (port: number) => {
      const address = `127.0.0.1:${port}`;
      return {
        address,
        jobs: await testClient(jobsV1.JobsServiceClient, address, 'gateway', { defaultDeadlineMs: 15_000 }),
        execution: await testClient(jobsExecutionV1.JobExecutionServiceClient, address, 'worker', { defaultDeadlineMs: 15_000 }),
        admin: await testClient(jobsAdminV1.JobsAdminServiceClient, address, 'gateway', { defaultDeadlineMs: 15_000 }),
      };
    };
    const harness: JobsHarness = {
      database,
      db,
      topology: jobsTopology(prefix),
      nats,
      app,
      config,
      ...(await connect(app.server.port)),
      media: await testClient(mediaV1.MediaServiceClient, mediaProcess?.address ?? '127.0.0.1:1', 'gateway'),
      mediaAsWorker: await testClient(mediaV1.MediaServiceClient, mediaProcess?.address ?? '127.0.0.1:1', 'worker'),
      catalog: await testClient(catalogV1.CatalogServiceClient, catalogProcess?.address ?? '127.0.0.1:1', 'gateway'),
      petDirectory: petDirectoryProcess,
      async restart(changes = {}) {
        await app.stop(100);
        config = { ...config, ...changes };
        app = await startJobsApp(config, logger, { host: '127.0.0.1' });
        harness.jobs.close();
        harness.execution.close();
        harness.admin.close();
        Object.assign(harness, { app, config }, await connect(app.server.port));
      },
      async startReplica() {
        const replica = await startJobsApp(config, logger, { host: '127.0.0.1' });
        const clients = await connect(replica.server.port);
        return {
          app: replica,
          jobs: clients.jobs,
          execution: clients.execution,
          async stop() {
            clients.jobs.close();
            clients.execution.close();
            clients.admin.close();
            await replica.stop(100);
          },
        };
      },
      async stop() {
        harness.jobs.close();
        harness.execution.close();
        harness.admin.close();
        harness.media.close();
        harness.mediaAsWorker.close();
        harness.catalog.close();
        await app.stop(100);
        await deleteJobStreams(await jetstreamManager(nats), jobsTopology(prefix));
        await nats.close();
        await db.end();
        await Promise.all(processes.map((p) => p.stop()));
        rmSync(s3Directory, { recursive: true, force: true });
        await database.drop();
      },
    };
    return harness;
  } catch (error) {
    await Promise.all(processes.map((p) => p.kill()));
    rmSync(s3Directory, { recursive: true, force: true });
    await database.drop();
    throw error;
  }
}

/** Uploads a real PNG for the user through media's two-step flow and returns the ready ai_input asset id. */
export async function uploadInputImage(
  media: PromiseClient<mediaV1.MediaServiceClient>,
  userId: string,
  purpose = mediaV1.AssetPurpose.AI_INPUT,
): Promise<string> {
  const bytes = await sharp({ create: { width: 256, height: 256, channels: 3, background: { r: 90, g: 140, b: 220 } } })
    .png()
    .toBuffer();
  const upload = await media.createUpload({ ownerUserId: userId, purpose, contentType: 'image/png', sizeBytes: bytes.length });
  const put = await fetch(upload.uploadUrl, { method: 'PUT', headers: upload.uploadHeaders, body: bytes });
  if (!put.ok) throw new Error(`upload PUT failed: ${put.status}`);
  await media.completeUpload({ assetId: upload.asset!.id, ownerUserId: userId });
  return upload.asset!.id;
}

/** The seeded image.stylize model and a style, from the real catalog, and the test kit's upscale model (the seed has none). */
export async function catalogChoice(catalog: PromiseClient<catalogV1.CatalogServiceClient>) {
  const { model: upscaler } = await catalog.upsertModel({
    actor: TEST_OPERATOR_ACTOR,
    ...TEST_UPSCALE_MODEL,
    mediaKind: commonV1.MediaKind.IMAGE,
  });
  const { models, styles } = await catalog.getCatalog({ mediaKind: commonV1.MediaKind.IMAGE });
  return {
    stylizer: models.find((m) => m.jobType === 'image.stylize')!,
    upscaler: upscaler!,
    style: styles[0]!,
  };
}

/** A create request for image.stylize of the seeded model and a style (catalogChoice); `fields` give the rest and may replace any. */
export function stylizeRequest(
  choice: Awaited<ReturnType<typeof catalogChoice>>,
  fields: Pick<jobsV1.CreateJobRequest, 'userId' | 'idempotencyKey' | 'inputAssetId'> & Partial<jobsV1.CreateJobRequest>,
): jobsV1.CreateJobRequest {
  return jobsV1.CreateJobRequest.fromPartial({
    jobType: 'image.stylize',
    modelId: choice.stylizer.id,
    styleId: choice.style.id,
    prompt: 'a fox',
    ...fields,
  });
}

/** A create request for system.canary (no peers, no quota). */
export function canaryRequest(userId: string, idempotencyKey: string): jobsV1.CreateJobRequest {
  return jobsV1.CreateJobRequest.fromPartial({ userId, idempotencyKey, jobType: 'system.canary' });
}

/** Resolves with what a promise rejected with, failing if it resolved. */
export async function refusal(promise: Promise<unknown>): Promise<{
  code: string;
  reason?: string;
  field?: string;
  message: string;
  retryAfterSeconds?: number;
  params?: Readonly<Record<string, string | number>>;
}> {
  const outcome = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!outcome) throw new Error('the call should have been refused');
  return outcome as never;
}

/** Stores a generated-looking PNG as the user's ai_output through media's PutServerAsset stream. */
export async function putOutputImage(
  media: PromiseClient<mediaV1.MediaServiceClient>,
  userId: string,
  key: string,
): Promise<mediaV1.Asset> {
  const bytes = await sharp({ create: { width: 128, height: 128, channels: 3, background: { r: 250, g: 60, b: 90 } } })
    .png()
    .toBuffer();
  return new Promise((resolve, reject) => {
    const call = media.raw.putServerAsset((error, response) => (error ? reject(error) : resolve(response.asset!)));
    call.write({
      part: {
        $case: 'header',
        header: {
          ownerUserId: userId,
          purpose: mediaV1.AssetPurpose.AI_OUTPUT,
          contentType: 'image/png',
          sizeBytes: bytes.length,
          idempotencyKey: key,
        },
      },
    });
    call.write({ part: { $case: 'chunk', chunk: bytes } });
    call.end();
  });
}

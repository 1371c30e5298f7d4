import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import sharp from 'sharp';
import { catalogV1, commonV1, jobsAdminV1, jobsV1, mediaV1 } from '@atelier/contracts';
import { createServiceClient, type PromiseClient } from '@atelier/grpc';
import { connectNats, deleteJobStreams, jetstreamManager, jobsTopology, type JobsTopology, type NatsConnection } from '@atelier/nats';
import {
  createTestDatabase,
  freePort,
  natsTestPrefix,
  startGrpcServiceProcess,
  startProcess,
  testNatsUrl,
  type ServiceProcess,
  type TestDatabase,
} from '@atelier/testing';

/**
 * The whole pipeline as real processes on loopback: catalog, media (with its own S3-protocol
 * store), jobs, provider-sim and any number of workers, on a database and NATS prefix of their
 * own. Tests drive it through the services' own gRPC and HTTP APIs.
 */
export interface Platform {
  database: TestDatabase;
  db: pg.Client;
  topology: JobsTopology;
  nats: NatsConnection;
  jobsProcess: ServiceProcess;
  provider: ServiceProcess;
  providerUrl: string;
  jobs: PromiseClient<jobsV1.JobsServiceClient>;
  admin: PromiseClient<jobsAdminV1.JobsAdminServiceClient>;
  media: PromiseClient<mediaV1.MediaServiceClient>;
  catalog: PromiseClient<catalogV1.CatalogServiceClient>;
  workers: ServiceProcess[];
  /** Starts one more worker process; resolves once it consumes. */
  startWorker(env?: Record<string, string>): Promise<ServiceProcess>;
  /** SIGTERMs every worker started so far and waits for them to exit. */
  stopWorkers(): Promise<void>;
  stop(): Promise<void>;
}

export interface PlatformOptions {
  jobsEnv?: Record<string, string>;
  providerEnv?: Record<string, string>;
  workerEnv?: Record<string, string>;
}

export async function startPlatform(options: PlatformOptions = {}): Promise<Platform> {
  const database = await createTestDatabase();
  const s3Directory = mkdtempSync(path.join(tmpdir(), 'atelier-platform-s3-'));
  const prefix = natsTestPrefix();
  const processes: ServiceProcess[] = [];
  try {
    const [catalogProcess, mediaProcess] = await Promise.all([
      startGrpcServiceProcess('catalog', { DATABASE_URL: database.url }),
      startGrpcServiceProcess('media', { DATABASE_URL: database.url, S3_EMBEDDED_PORT: '0', S3_EMBEDDED_DIR: s3Directory }),
    ]);
    processes.push(catalogProcess, mediaProcess);
    const providerPort = await freePort();
    const provider = await startProcess({
      name: 'provider-sim',
      entry: 'services/provider-sim/src/main.ts',
      port: providerPort,
      env: { HTTP_PORT: String(providerPort), LOG_LEVEL: 'warn', PROVIDER_SIM_LATENCY_MS: '400', ...options.providerEnv },
      ready: async (address) => (await fetch(`http://${address}/healthz`)).ok,
    });
    processes.push(provider);
    const jobsProcess = await startGrpcServiceProcess('jobs', {
      DATABASE_URL: database.url,
      NATS_STREAM_PREFIX: prefix,
      CATALOG_ADDR: catalogProcess.address,
      MEDIA_ADDR: mediaProcess.address,
      LEASE_TTL_MS: '3000',
      REAPER_INTERVAL_MS: '300',
      OUTBOX_POLL_INTERVAL_MS: '100',
      QUOTA_DAILY_LIMIT: '100000',
      QUOTA_MAX_IN_FLIGHT: '10000',
      DB_POOL_MAX: '10',
      ...options.jobsEnv,
    });
    processes.push(jobsProcess);

    const nats = await connectNats({ servers: testNatsUrl(), name: 'platform-test' });
    const db = new pg.Client({ connectionString: database.url });
    await db.connect();
    const workers: ServiceProcess[] = [];
    const providerUrl = `http://${provider.address}`;

    const platform: Platform = {
      database,
      db,
      topology: jobsTopology(prefix),
      nats,
      jobsProcess,
      provider,
      providerUrl,
      jobs: createServiceClient(jobsV1.JobsServiceClient, jobsProcess.address, { defaultDeadlineMs: 15_000 }),
      admin: createServiceClient(jobsAdminV1.JobsAdminServiceClient, jobsProcess.address, { defaultDeadlineMs: 15_000 }),
      media: createServiceClient(mediaV1.MediaServiceClient, mediaProcess.address),
      catalog: createServiceClient(catalogV1.CatalogServiceClient, catalogProcess.address),
      workers,
      async startWorker(env = {}) {
        const port = await freePort();
        const worker = await startProcess({
          name: 'worker',
          entry: 'services/worker/src/main.ts',
          port,
          env: {
            HTTP_PORT: String(port),
            JOBS_ADDR: jobsProcess.address,
            MEDIA_ADDR: mediaProcess.address,
            NATS_STREAM_PREFIX: prefix,
            PROVIDER_URL: providerUrl,
            WORKER_ACK_WAIT_INTERACTIVE_MS: '2000',
            WORKER_ACK_WAIT_BACKGROUND_MS: '2000',
            WORKER_POLL_INTERVAL_MS: '100',
            LOG_LEVEL: 'warn',
            ...options.workerEnv,
            ...env,
          },
          ready: async (address) => (await fetch(`http://${address}/readyz`)).ok,
        });
        workers.push(worker);
        processes.push(worker);
        return worker;
      },
      async stopWorkers() {
        await Promise.all(workers.splice(0).map((worker) => worker.stop()));
      },
      async stop() {
        platform.jobs.close();
        platform.admin.close();
        platform.media.close();
        platform.catalog.close();
        await Promise.all(processes.map((p) => p.kill()));
        await deleteJobStreams(await jetstreamManager(nats), jobsTopology(prefix));
        await nats.close();
        await db.end();
        rmSync(s3Directory, { recursive: true, force: true });
        await database.drop();
      },
    };
    return platform;
  } catch (error) {
    await Promise.all(processes.map((p) => p.kill()));
    rmSync(s3Directory, { recursive: true, force: true });
    await database.drop();
    throw error;
  }
}

/** A real PNG uploaded through media's two-step flow as the user's ai_input; answers its id and bytes. */
export async function uploadInput(
  media: PromiseClient<mediaV1.MediaServiceClient>,
  userId: string,
): Promise<{ assetId: string; bytes: Buffer }> {
  const bytes = await sharp({
    create: { width: 160, height: 120, channels: 3, background: { r: 30, g: 144, b: 255 } },
  })
    .composite([{ input: Buffer.from('<svg width="160" height="120"><circle cx="80" cy="60" r="40" fill="orange"/></svg>') }])
    .png()
    .toBuffer();
  const upload = await media.createUpload({
    ownerUserId: userId,
    purpose: mediaV1.AssetPurpose.AI_INPUT,
    contentType: 'image/png',
    sizeBytes: bytes.length,
  });
  const put = await fetch(upload.uploadUrl, { method: 'PUT', headers: upload.uploadHeaders, body: bytes });
  if (!put.ok) throw new Error(`upload failed: ${put.status}`);
  await media.completeUpload({ assetId: upload.asset!.id, ownerUserId: userId });
  return { assetId: upload.asset!.id, bytes };
}

export async function stylizeRequest(
  platform: Platform,
  userId: string,
  inputAssetId: string,
  prompt: string,
  key: string,
): Promise<jobsV1.CreateJobRequest> {
  const { models, styles } = await platform.catalog.getCatalog({ mediaKind: commonV1.MediaKind.IMAGE });
  return jobsV1.CreateJobRequest.fromPartial({
    userId,
    idempotencyKey: key,
    jobType: 'image.stylize',
    modelId: models.find((m) => m.jobType === 'image.stylize')!.id,
    styleId: styles.find((s) => s.code === 'pop-art')?.id ?? styles[0]!.id,
    inputAssetId,
    prompt,
  });
}

const TERMINAL = new Set([jobsV1.JobStatus.SUCCEEDED, jobsV1.JobStatus.FAILED, jobsV1.JobStatus.CANCELLED]);

/** Polls GetJob until the job is terminal (or matches `until`). */
export async function waitForJob(
  platform: Platform,
  jobId: string,
  userId: string,
  options: { timeoutMs?: number; until?: (job: jobsV1.Job) => boolean } = {},
): Promise<jobsV1.Job> {
  const until = options.until ?? ((job) => TERMINAL.has(job.status));
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  let job: jobsV1.Job | undefined;
  while (Date.now() < deadline) {
    job = (await platform.jobs.getJob({ jobId, userId })).job!;
    if (until(job)) return job;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`job ${jobId} did not get there in time; last status ${job?.status}, attempts ${job?.attemptCount}`);
}

export interface ProviderStats {
  predictions_total: number;
  by_key: Record<string, { submissions: number; requests: number }>;
}

export async function providerStats(platform: Platform): Promise<ProviderStats> {
  return (await fetch(`${platform.providerUrl}/v1/stats`)).json() as Promise<ProviderStats>;
}

/** Predictions charged for a job across all its provider keys (job id, job id:1, …). */
export function chargedFor(stats: ProviderStats, jobId: string): number {
  return Object.entries(stats.by_key)
    .filter(([key]) => key === jobId || key.startsWith(`${jobId}:`))
    .reduce((sum, [, entry]) => sum + entry.submissions, 0);
}

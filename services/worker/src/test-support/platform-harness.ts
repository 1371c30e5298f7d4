import pg from 'pg';
import sharp from 'sharp';
import { TERMINAL_JOB_STATUSES, catalogV1, commonV1, jobsAdminV1, jobsV1, mediaV1 } from '@atelier/contracts';
import type { PromiseClient } from '@atelier/grpc';
import { connectNats, jobsTopology, type JobsTopology, type NatsConnection } from '@atelier/nats';
import { startTestPlatform, testClient, testNatsUrl, type PlatformOptions, type TestPlatform } from '@atelier/testing';

/**
 * The whole pipeline as real processes (see @atelier/testing startTestPlatform) plus the clients
 * and the database connection worker tests drive it with.
 */
export interface Platform {
  processes: TestPlatform;
  startWorker: TestPlatform['startWorker'];
  stopWorkers: TestPlatform['stopWorkers'];
  stop(): Promise<void>;
  db: pg.Client;
  topology: JobsTopology;
  nats: NatsConnection;
  providerUrl: string;
  jobs: PromiseClient<jobsV1.JobsServiceClient>;
  admin: PromiseClient<jobsAdminV1.JobsAdminServiceClient>;
  /** Media as the gateway calls it (uploads). */
  media: PromiseClient<mediaV1.MediaServiceClient>;
  /** Media as the worker calls it (reading outputs back). */
  mediaAsWorker: PromiseClient<mediaV1.MediaServiceClient>;
  catalog: PromiseClient<catalogV1.CatalogServiceClient>;
}

export async function startPlatform(options: Pick<PlatformOptions, 'jobsEnv' | 'providerEnv' | 'workerEnv'> = {}): Promise<Platform> {
  const platform = await startTestPlatform({ ...options, provider: true });
  const nats = await connectNats({ servers: testNatsUrl(), name: 'platform-test' });
  const db = new pg.Client({ connectionString: platform.database.url });
  await db.connect();
  const clients = {
    jobs: await testClient(jobsV1.JobsServiceClient, platform.jobs.address, 'gateway', { defaultDeadlineMs: 15_000 }),
    admin: await testClient(jobsAdminV1.JobsAdminServiceClient, platform.jobs.address, 'gateway', { defaultDeadlineMs: 15_000 }),
    media: await testClient(mediaV1.MediaServiceClient, platform.media.address, 'gateway'),
    mediaAsWorker: await testClient(mediaV1.MediaServiceClient, platform.media.address, 'worker'),
    catalog: await testClient(catalogV1.CatalogServiceClient, platform.catalog.address, 'gateway'),
  };
  return {
    processes: platform,
    ...clients,
    db,
    nats,
    topology: jobsTopology(platform.natsPrefix),
    providerUrl: platform.providerUrl!,
    startWorker: platform.startWorker,
    stopWorkers: platform.stopWorkers,
    async stop() {
      for (const client of Object.values(clients)) client.close();
      await nats.close();
      await db.end();
      await platform.stop();
    },
  };
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
    styleId: styles[0]!.id,
    inputAssetId,
    prompt,
  });
}

/** Polls GetJob until the job is terminal (or matches `until`). */
export async function waitForJob(
  platform: Platform,
  jobId: string,
  userId: string,
  options: { timeoutMs?: number; until?: (job: jobsV1.Job) => boolean } = {},
): Promise<jobsV1.Job> {
  const until = options.until ?? ((job) => TERMINAL_JOB_STATUSES.has(job.status));
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

/** What provider-sim recorded a prediction was asked (its `input` echo; the image URL left out). */
export async function providerInput(platform: Platform, predictionId: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${platform.providerUrl}/v1/predictions/${predictionId}`, { headers: { authorization: 'Bearer test' } });
  if (!response.ok) throw new Error(`provider-sim answered ${response.status} for ${predictionId}`);
  return ((await response.json()) as { input: Record<string, unknown> }).input;
}

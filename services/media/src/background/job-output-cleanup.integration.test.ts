import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobsV1, mediaV1 } from '@atelier/contracts';
import type { PromiseClient } from '@atelier/grpc';
import { connectNats, jetstream, jetstreamManager, jobsTopology, type NatsConnection } from '@atelier/nats';
import { startTestPlatform, testNatsUrl, waitUntil, type TestPlatform } from '@atelier/testing';
import pg from 'pg';
import { outputCleanupConsumer } from './job-output-cleanup.js';
import { jobsTestClients, mediaTestClient } from '../test-support/media-client.js';

let platform: TestPlatform;
let media: PromiseClient<mediaV1.MediaServiceClient>;
let jobs: Awaited<ReturnType<typeof jobsTestClients>>;
let nats: NatsConnection;
let db: pg.Client;
let seq = 0;

beforeAll(async () => {
  platform = await startTestPlatform();
  media = await mediaTestClient(platform.media.address, 'worker');
  jobs = await jobsTestClients(platform.jobs.address);
  nats = await connectNats({ servers: testNatsUrl(), name: 'media-cleanup-forgery-test' });
  db = new pg.Client({ connectionString: platform.database.url });
  await db.connect();
}, 120_000);

afterAll(async () => {
  media?.close();
  jobs?.close();
  await nats?.close();
  await db?.end();
  await platform?.stop();
});

/** A real job of the real jobs service (a canary: no peers, no quota), and an output stored for it. */
async function jobWithOutput(user: string): Promise<{ job: jobsV1.Job; assetId: string }> {
  const { job } = await jobs.jobs.createJob(
    jobsV1.CreateJobRequest.fromPartial({ userId: user, idempotencyKey: `forgery-${++seq}`, jobType: 'system.canary' }),
  );
  const bytes = await sharp({ create: { width: 96, height: 96, channels: 3, background: { r: 1, g: 2, b: 3 } } })
    .png()
    .toBuffer();
  const asset = await new Promise<mediaV1.PutServerAssetResponse>((resolve, reject) => {
    const call = media.raw.putServerAsset((error, response) => (error ? reject(error) : resolve(response)));
    call.write({
      part: {
        $case: 'header',
        header: mediaV1.PutServerAssetHeader.fromPartial({
          ownerUserId: user,
          purpose: mediaV1.AssetPurpose.AI_OUTPUT,
          contentType: 'image/png',
          sizeBytes: bytes.length,
          idempotencyKey: job!.id,
        }),
      },
    });
    call.write({ part: { $case: 'chunk', chunk: bytes } });
    call.end();
  });
  return { job: job!, assetId: asset.asset!.id };
}

async function statusOf(assetId: string): Promise<string> {
  return (await db.query('SELECT status FROM media.assets WHERE id = $1', [assetId])).rows[0].status as string;
}

/** A lifecycle event as the jobs outbox publishes it, but sent by someone else. */
async function forge(jobId: string, state: 'failed' | 'cancelled'): Promise<void> {
  const topology = jobsTopology(platform.natsPrefix);
  const event = { jobId, jobType: 'system.canary', eventType: `job.${state}`, attempt: 1 };
  await jetstream(nats).publish(topology.eventSubject(state), JSON.stringify(event));
}

describe('media - forged lifecycle events delete nothing (media and jobs as real processes)', () => {
  it('keeps the output of a queued, running or succeeded job whatever the event says; deletes it once jobs says cancelled', async () => {
    const user = `forgery-user-${process.pid}`;
    const queued = await jobWithOutput(user);
    const running = await jobWithOutput(user);
    await jobs.execution.claimJob({ jobId: running.job.id, workerId: 'forgery-worker' });
    const succeeded = await jobWithOutput(user);
    await jobs.execution.claimJob({ jobId: succeeded.job.id, workerId: 'forgery-worker' });
    await jobs.execution.completeJob({ jobId: succeeded.job.id, workerId: 'forgery-worker', outputAssetId: '', outputSha256: '' });

    await forge(queued.job.id, 'failed');
    await forge(running.job.id, 'cancelled');
    await forge(succeeded.job.id, 'failed');

    // A really cancelled job, announced by jobs itself, after the forgeries: once its output is
    // gone, media has handled the events published before it on the same consumer.
    const cancelled = await jobWithOutput(user);
    await jobs.jobs.cancelJob({ jobId: cancelled.job.id, userId: user });
    await waitUntil(async () => (await statusOf(cancelled.assetId)) === 'deleted', { timeoutMs: 15_000 });
    // And the failed consumer has settled both forged `failed` events.
    const jsm = await jetstreamManager(nats);
    const topology = jobsTopology(platform.natsPrefix);
    await waitUntil(
      async () => {
        const info = await jsm.consumers.info(topology.eventsStream, outputCleanupConsumer('failed'));
        return info.delivered.consumer_seq >= 2 && info.num_pending + info.num_ack_pending === 0;
      },
      { timeoutMs: 15_000, what: 'the failed-event consumer settles' },
    );

    for (const { assetId } of [queued, running, succeeded]) expect(await statusOf(assetId)).toBe('ready');
  }, 60_000);
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@atelier/config';
import { communityV1, jobsExecutionV1, loadDescriptorSet, mediaV1 } from '@atelier/contracts';
import { AppError, ErrorCode } from '@atelier/errors';
import { registerService, startGrpcServer, type GrpcServerHandle } from '@atelier/grpc';
import { createLogger } from '@atelier/logging';
import { createTestDatabase, testClient, testIdentityEnv, testProductEventsKey, testSecurity, type TestDatabase } from '@atelier/testing';
import { mediaConfigSpec } from './config.js';
import { createMediaOrm, migrateMedia } from './db/media-orm.js';
import { startMediaApp } from './media-app.js';

const logger = createLogger({ service: 'media-app-test', level: process.env.TEST_LOG_LEVEL ?? 'silent' });
const unused = async (): Promise<never> => {
  throw new AppError(ErrorCode.INTERNAL, 'not used in this test');
};

/** A peer serving one method of its service (the one media asks), as `identity`: every asset is unused. */
async function fakePeer(
  identity: string,
  name: string,
  definition: Record<string, unknown>,
  handlers: Record<string, () => Promise<unknown>>,
): Promise<GrpcServerHandle> {
  const all = Object.fromEntries(Object.keys(definition).map((method) => [method, unused]));
  return startGrpcServer({
    host: '127.0.0.1',
    port: 0,
    healthPort: 0,
    security: await testSecurity(identity),
    descriptorSet: loadDescriptorSet(),
    logger,
    services: [registerService(name, definition as never, { ...all, ...handlers } as never, logger, { media: 'all' })],
  });
}

let database: TestDatabase;
let s3Directory: string;
const peers: GrpcServerHandle[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  const orm = await createMediaOrm(database.url, 1);
  await migrateMedia(orm, database.url);
  await orm.close();
  s3Directory = mkdtempSync(path.join(tmpdir(), 'atelier-media-app-s3-'));
  peers.push(
    await fakePeer('jobs', 'atelier.jobs.v1.JobExecutionService', jobsExecutionV1.JobExecutionServiceService, {
      countActiveJobsUsingAsset: async () => ({ count: 0 }),
    }),
    await fakePeer('community', 'atelier.community.v1.CommunityService', communityV1.CommunityServiceService, {
      countPublishedPostsUsingAsset: async () => ({ count: 0 }),
    }),
  );
}, 60_000);

afterAll(async () => {
  await Promise.all(peers.map((peer) => peer.shutdown(100)));
  rmSync(s3Directory, { recursive: true, force: true });
  await database?.drop();
});

describe('media app - stopping', () => {
  it('drains its server before it closes the peer clients the calls in flight still need', async () => {
    const config = loadConfig(mediaConfigSpec, {
      ...(await testIdentityEnv('media')),
      DATABASE_URL: database.url,
      GRPC_PORT: '0',
      GRPC_HEALTH_PORT: '0',
      S3_EMBEDDED_DIR: s3Directory,
      S3_EMBEDDED_PORT: '0',
      PRODUCT_EVENTS_USER_KEY: testProductEventsKey(),
      JOBS_ADDR: `127.0.0.1:${peers[0]!.port}`,
      COMMUNITY_ADDR: `127.0.0.1:${peers[1]!.port}`,
      LOG_LEVEL: 'warn',
    });
    const app = await startMediaApp(config, logger);
    const client = await testClient(mediaV1.MediaServiceClient, `127.0.0.1:${app.server.port}`, 'gateway', { defaultDeadlineMs: 20_000 });
    const owner = 'stopping-owner';
    const { asset } = await client.createUpload({
      ownerUserId: owner,
      purpose: mediaV1.AssetPurpose.AI_INPUT,
      contentType: 'image/png',
      sizeBytes: 100,
    });
    // The delete waits on the asset's row (held here) before it asks jobs and community.
    const holder = new pg.Client({ connectionString: database.url });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM media.assets WHERE id = $1 FOR UPDATE', [asset!.id]);
      const deleting = client.deleteOwnAsset({ assetId: asset!.id, ownerUserId: owner }).then(
        () => 'deleted',
        (error: unknown) => error,
      );
      await sleep(300);
      const stopping = app.stop(15_000);
      // Long enough for a stop that closed the peer clients first to have done so by now.
      await sleep(500);
      await holder.query('COMMIT');
      expect(await deleting).toBe('deleted');
      await stopping;
    } finally {
      await holder.end();
      client.close();
    }
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { mediaV1 } from '@atelier/contracts';
import { createSqlPool, type SqlPool } from '@atelier/db';
import type { GrpcServerHandle, PromiseClient } from '@atelier/grpc';
import { createLogger } from '@atelier/logging';
import { productEventsOf } from '@atelier/outbox';
import { createTestDatabase, testClient, testProductEventsKey, testSecurity, uniqueName, type TestDatabase } from '@atelier/testing';
import { createMediaOrm, migrateMedia } from '../db/media-orm.js';
import type { MediaContext } from '../media-context.js';
import { startMediaServer } from '../server.js';
import { EMBEDDED_S3_CREDENTIALS, startEmbeddedS3 } from '../storage/embedded-s3.js';
import { ObjectStore } from '../storage/object-store.js';

/** The media service in-process on a database and an S3-protocol store of its own, with a client. */
export interface MediaHarness {
  database: TestDatabase;
  pool: SqlPool;
  server: GrpcServerHandle;
  /** Media as the gateway calls it. */
  client: PromiseClient<mediaV1.MediaServiceClient>;
  /** Media as the worker calls it (server assets, deletes). */
  asWorker: PromiseClient<mediaV1.MediaServiceClient>;
  /** Media as jobs calls it (input checks, retention's deletes). */
  asJobs: PromiseClient<mediaV1.MediaServiceClient>;
  stop(): Promise<void>;
}

/** `context` overrides parts of the handlers' context (limits, TTLs). */
export async function startMediaHarness(context: Partial<MediaContext> = {}): Promise<MediaHarness> {
  const database = await createTestDatabase();
  const s3Directory = mkdtempSync(path.join(tmpdir(), 'atelier-media-s3-'));
  const s3 = await startEmbeddedS3({ directory: s3Directory, port: 0 });
  const store = new ObjectStore({
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
  const pool = createSqlPool({ databaseUrl: database.url, max: 8, applicationName: 'media-test' });
  const logger = createLogger({ service: 'media-test', level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  const server = await startMediaServer(
    {
      pool,
      store,
      logger,
      productEvents: productEventsOf({ PRODUCT_EVENTS_USER_KEY: testProductEventsKey(), NATS_STREAM_PREFIX: 'MEDIA_TEST' }),
      uploadUrlTtlSeconds: 300,
      downloadUrlTtlSeconds: 60,
      ...context,
    },
    { host: '127.0.0.1', port: 0, healthPort: 0, security: await testSecurity('media') },
  );
  const client = await testClient(mediaV1.MediaServiceClient, `127.0.0.1:${server.port}`, 'gateway', { defaultDeadlineMs: 15_000 });
  const asWorker = await testClient(mediaV1.MediaServiceClient, `127.0.0.1:${server.port}`, 'worker', { defaultDeadlineMs: 15_000 });
  const asJobs = await testClient(mediaV1.MediaServiceClient, `127.0.0.1:${server.port}`, 'jobs', { defaultDeadlineMs: 15_000 });
  return {
    database,
    pool,
    server,
    client,
    asWorker,
    asJobs,
    async stop() {
      client.close();
      asWorker.close();
      asJobs.close();
      await server.shutdown(100);
      await pool.end();
      store.close();
      await s3.close();
      rmSync(s3Directory, { recursive: true, force: true });
      await database.drop();
    },
  };
}

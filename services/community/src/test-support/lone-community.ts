import { communityV1 } from '@atelier/contracts';
import type { PromiseClient } from '@atelier/grpc';
import { createLogger } from '@atelier/logging';
import { createTestDatabase, testClient, testIdentityEnv, testProductEventsKey, type TestDatabase } from '@atelier/testing';
import { startCommunityApp, type CommunityApp, type CommunityAppConfig } from '../community-app.js';
import { createCommunityOrm, migrateCommunity } from '../db/community-orm.js';

/**
 * The community service alone, in-process, on a database of its own: for what needs no peer
 * (posts without media or job). Its peers point at a closed port; a call that reaches them fails.
 */
export interface LoneCommunity {
  database: TestDatabase;
  app: CommunityApp;
  community: PromiseClient<communityV1.CommunityServiceClient>;
  stop(): Promise<void>;
}

/** The configuration of an in-process community server for tests: its own certificate, free ports. */
export async function communityTestConfig(
  databaseUrl: string,
  peers: { MEDIA_ADDR: string; JOBS_ADDR: string },
  extra: Partial<CommunityAppConfig> = {},
): Promise<CommunityAppConfig> {
  return {
    ...(await testIdentityEnv('community')),
    GRPC_PORT: 0,
    GRPC_HEALTH_PORT: 0,
    GRPC_REFLECTION: true,
    DATABASE_URL: databaseUrl,
    PRODUCT_EVENTS_USER_KEY: testProductEventsKey(),
    ...peers,
    ...extra,
  };
}

export async function startLoneCommunity(config: Partial<CommunityAppConfig> = {}): Promise<LoneCommunity> {
  const database = await createTestDatabase();
  const orm = await createCommunityOrm(database.url);
  await migrateCommunity(orm, database.url);
  await orm.close();
  const logger = createLogger({ service: 'community-test', level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  const app = await startCommunityApp(
    await communityTestConfig(database.url, { MEDIA_ADDR: '127.0.0.1:1', JOBS_ADDR: '127.0.0.1:1' }, config),
    logger,
    { host: '127.0.0.1' },
  );
  const community = await testClient(communityV1.CommunityServiceClient, `127.0.0.1:${app.server.port}`, 'gateway', {
    defaultDeadlineMs: 15_000,
  });
  return {
    database,
    app,
    community,
    async stop() {
      community.close();
      await app.stop(100);
      await database.drop();
    },
  };
}

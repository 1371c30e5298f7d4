import { jobsV1, mediaV1 } from '@atelier/contracts';
import { createSqlPool } from '@atelier/db';
import { createServiceClient, loadGrpcSecurity, servingOptionsOf, type CallObserver, type GrpcServerHandle } from '@atelier/grpc';
import type { Logger } from '@atelier/logging';
import type { CommunityConfig } from './config.js';
import type { CommunityContext } from './community-context.js';
import { startCommunityServer } from './server.js';

export type CommunityAppConfig = Pick<
  CommunityConfig,
  | 'GRPC_PORT'
  | 'GRPC_HEALTH_PORT'
  | 'GRPC_REFLECTION'
  | 'GRPC_TLS_CA_FILE'
  | 'GRPC_TLS_CERT_FILE'
  | 'GRPC_TLS_KEY_FILE'
  | 'GRPC_TRUST_DOMAIN'
  | 'DATABASE_URL'
  | 'MEDIA_ADDR'
  | 'JOBS_ADDR'
> &
  Partial<Pick<CommunityConfig, 'POSTS_DAILY_LIMIT'>>;

export interface CommunityApp {
  readonly server: GrpcServerHandle;
  readonly context: CommunityContext;
  /** Stops serving (graceful for graceMs), then closes the peers and the pool. */
  stop(graceMs: number): Promise<void>;
}

/** Wires the community service: the pg pool, the media and jobs clients, the gRPC server. */
export async function startCommunityApp(
  config: CommunityAppConfig,
  logger: Logger,
  options: { host?: string; callObserver?: CallObserver } = {},
): Promise<CommunityApp> {
  const security = loadGrpcSecurity(config);
  const pool = createSqlPool({ databaseUrl: config.DATABASE_URL, applicationName: 'community' });
  const peers = {
    media: createServiceClient(mediaV1.MediaServiceClient, config.MEDIA_ADDR, security, { defaultDeadlineMs: 3_000 }),
    jobs: createServiceClient(jobsV1.JobsServiceClient, config.JOBS_ADDR, security, { defaultDeadlineMs: 3_000 }),
  };
  const context: CommunityContext = {
    pool,
    peers,
    logger,
    ...(config.POSTS_DAILY_LIMIT === undefined ? {} : { postLimits: { postsPerDay: config.POSTS_DAILY_LIMIT } }),
  };
  const server = await startCommunityServer(context, {
    ...servingOptionsOf(config, security),
    host: options.host,
    callObserver: options.callObserver,
  }).catch(async (error: unknown) => {
    peers.media.close();
    peers.jobs.close();
    await pool.end();
    throw error;
  });
  return {
    server,
    context,
    async stop(graceMs) {
      await server.shutdown(graceMs);
      peers.media.close();
      peers.jobs.close();
      await pool.end();
    },
  };
}

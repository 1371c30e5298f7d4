import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import S3rver from 's3rver';
import { natsTestPrefix, testNatsUrl } from './nats-test-prefix.js';
import { testProductEventsKey } from './test-product-events-key.js';
import { testCredentialsKekFile } from './test-credentials-kek.js';
import { freePort, startGrpcServiceProcess, startHttpServiceProcess, type ServiceProcess } from './service-process.js';
import { createTestDatabase, type TestDatabase } from './test-database.js';

export interface PlatformOptions {
  /** Start community (needed by the gateway). */
  community?: boolean;
  /** Start provider-sim. */
  provider?: boolean;
  /** Start webhooks with these extra variables (e.g. WEBHOOK_ALLOWED_HOSTS, WEBHOOK_RETRY_SCHEDULE_MS); the gateway is told its address. */
  webhooks?: Record<string, string>;
  /** Worker processes to start now (more with startWorker). */
  workers?: number;
  /** Start the gateway with these extra variables: JWT_PUBLIC_KEY (or JWKS_URL), JWT_ISSUER and JWT_AUDIENCE at least. */
  gateway?: Record<string, string>;
  jobsEnv?: Record<string, string>;
  providerEnv?: Record<string, string>;
  /** Variables of pet-directory-sim, e.g. PET_DIRECTORY_SEED (the pets of the test's users; unset: npm start's development pets). */
  petDirectoryEnv?: Record<string, string>;
  workerEnv?: Record<string, string>;
  /** Variables for every service process (e.g. OTEL_EXPORTER_OTLP_ENDPOINT); the per-service ones win. */
  env?: Record<string, string>;
  /** Extra node flags per service name, e.g. `{ gateway: ['--cpu-prof'] }` to profile one. */
  nodeArgs?: Record<string, string[]>;
  /** The NATS every service uses (default TEST_NATS_URL): a fault test's own nats-server. */
  natsUrl?: string;
}

/**
 * Atelier's services as real processes on loopback — catalog, media (on an S3-protocol server
 * this process runs, as production points media at S3 or MinIO), pet-directory-sim (the app's pet
 * service, which jobs asks about a job's pet), jobs, and on request community, webhooks,
 * provider-sim, workers and the gateway — on a database and a NATS stream prefix of their own,
 * removed by stop().
 */
export interface TestPlatform {
  database: TestDatabase;
  /** NATS_STREAM_PREFIX of every service: its streams are `<natsPrefix>_JOBS`, `<natsPrefix>_PRODUCT_EVENTS` … */
  natsPrefix: string;
  /** The NATS every service uses. */
  natsUrl: string;
  /** PRODUCT_EVENTS_USER_KEY of jobs, media and community (testProductEventsKey): a test computes user_refs with it. */
  productEventsUserKey: string;
  catalog: ServiceProcess;
  media: ServiceProcess;
  /** The stand-in for the app's pet service: kill or pause it to see creates with a pet answered 503. */
  petDirectory: ServiceProcess;
  jobs: ServiceProcess;
  community?: ServiceProcess;
  webhooks?: ServiceProcess;
  provider?: ServiceProcess;
  gateway?: ServiceProcess;
  workers: ServiceProcess[];
  /** `http://127.0.0.1:<port>` of provider-sim / the gateway, when started. */
  providerUrl?: string;
  gatewayUrl?: string;
  startWorker(env?: Record<string, string>): Promise<ServiceProcess>;
  /**
   * Starts one more gateway (a replica: same peers, same NATS and so the same shared rate limit),
   * with `options.gateway` and then these variables; stopped with the platform.
   */
  startGateway(env?: Record<string, string>): Promise<ServiceProcess>;
  /** SIGTERMs every worker started so far and waits for them to exit. */
  stopWorkers(): Promise<void>;
  /**
   * Starts a service again after it exited (was killed or stopped): same port, same
   * environment. The platform's field for it points at the new process afterwards.
   */
  restart(
    service: 'catalog' | 'media' | 'petDirectory' | 'jobs' | 'community' | 'webhooks' | 'provider' | 'gateway',
  ): Promise<ServiceProcess>;
  stop(): Promise<void>;
}

export async function startTestPlatform(options: PlatformOptions = {}): Promise<TestPlatform> {
  const database = await createTestDatabase();
  const s3Directory = mkdtempSync(path.join(tmpdir(), 'atelier-platform-s3-'));
  const s3 = new S3rver({ address: '127.0.0.1', port: 0, directory: s3Directory, silent: true });
  const s3Address = await s3.run();
  const natsPrefix = natsTestPrefix();
  const natsUrl = options.natsUrl ?? testNatsUrl();
  const processes: ServiceProcess[] = [];
  const cleanup = async () => {
    // SIGTERM first (a clean exit writes CPU profiles, closes connections), SIGKILL after 5 s.
    await Promise.all(
      processes.map(async (p) => {
        const forced = setTimeout(() => void p.kill(), 5_000);
        await p.stop();
        clearTimeout(forced);
      }),
    );
    // A fault test's own broker may be down by now: its streams go with its store.
    const nc = await connect({ servers: natsUrl.split(',').map((server) => server.replace(/^nats:\/\//, '')), timeout: 2_000 }).catch(
      () => undefined,
    );
    if (nc) {
      const jsm = await jetstreamManager(nc);
      for (const stream of [
        `${natsPrefix}_JOBS`,
        `${natsPrefix}_JOB_EVENTS`,
        `${natsPrefix}_ACCOUNT_EVENTS`,
        `${natsPrefix}_PRODUCT_EVENTS`,
        `KV_${natsPrefix}_RATE_LIMITS`,
      ])
        await jsm.streams.delete(stream).catch(() => false);
      await nc.close();
    }
    await s3.close();
    rmSync(s3Directory, { recursive: true, force: true });
    await database.drop();
  };
  try {
    // Media asks jobs whether a job ended (output cleanup), and jobs and community whether an
    // asset its owner deletes is in use, while both ask media: their ports first.
    const jobsPort = await freePort();
    const communityPort = await freePort();
    // Catalog asks media about style previews and media starts beside it: media's port first too.
    const mediaPort = await freePort();
    // Settled, not all: when one fails to start, the others (already running) must be stopped too.
    const started = await Promise.allSettled([
      startGrpcServiceProcess(
        'catalog',
        {
          ...options.env,
          DATABASE_URL: database.url,
          NATS_URL: natsUrl,
          NATS_STREAM_PREFIX: natsPrefix,
          MEDIA_ADDR: `127.0.0.1:${mediaPort}`,
        },
        options.nodeArgs?.catalog,
      ),
      startGrpcServiceProcess(
        'media',
        {
          ...options.env,
          DATABASE_URL: database.url,
          NATS_URL: natsUrl,
          NATS_STREAM_PREFIX: natsPrefix,
          JOBS_ADDR: `127.0.0.1:${jobsPort}`,
          COMMUNITY_ADDR: `127.0.0.1:${communityPort}`,
          GRPC_PORT: String(mediaPort),
          S3_ENDPOINT: `http://${s3Address.address}:${s3Address.port}`,
          // s3rver's fixed development credentials: public, not secrets.
          S3_ACCESS_KEY_ID: 'S3RVER',
          S3_SECRET_ACCESS_KEY: 'S3RVER',
        },
        options.nodeArgs?.media,
      ),
      // No database, no peers: only its seed.
      startGrpcServiceProcess('pet-directory-sim', { ...options.env, ...options.petDirectoryEnv }, options.nodeArgs?.['pet-directory-sim']),
    ]);
    for (const outcome of started) if (outcome.status === 'fulfilled') processes.push(outcome.value);
    const failed = started.find((outcome) => outcome.status === 'rejected');
    if (failed) throw failed.reason;
    const [catalog, media, petDirectory] = processes as [ServiceProcess, ServiceProcess, ServiceProcess];
    const jobs = await startGrpcServiceProcess(
      'jobs',
      {
        ...options.env,
        DATABASE_URL: database.url,
        NATS_URL: natsUrl,
        NATS_STREAM_PREFIX: natsPrefix,
        GRPC_PORT: String(jobsPort),
        CATALOG_ADDR: catalog.address,
        MEDIA_ADDR: media.address,
        PET_DIRECTORY_ADDR: petDirectory.address,
        PET_DIRECTORY_IDENTITY: 'pet-directory-sim',
        LEASE_TTL_MS: '3000',
        REAPER_INTERVAL_MS: '300',
        OUTBOX_POLL_INTERVAL_MS: '100',
        QUOTA_DAILY_LIMIT: '100000',
        QUOTA_MONTHLY_LIMIT: '100000',
        QUOTA_MAX_IN_FLIGHT: '10000',
        DB_POOL_MAX: '10',
        CREDENTIALS_KEK_FILE: testCredentialsKekFile(),
        ...options.jobsEnv,
      },
      options.nodeArgs?.jobs,
    );
    processes.push(jobs);
    const community =
      options.community || options.gateway
        ? await startGrpcServiceProcess(
            'community',
            {
              ...options.env,
              DATABASE_URL: database.url,
              GRPC_PORT: String(communityPort),
              MEDIA_ADDR: media.address,
              JOBS_ADDR: jobs.address,
              NATS_URL: natsUrl,
              NATS_STREAM_PREFIX: natsPrefix,
            },
            options.nodeArgs?.community,
          )
        : undefined;
    if (community) processes.push(community);
    const webhooks = options.webhooks
      ? await startGrpcServiceProcess(
          'webhooks',
          {
            ...options.env,
            DATABASE_URL: database.url,
            NATS_URL: natsUrl,
            NATS_STREAM_PREFIX: natsPrefix,
            JOBS_ADDR: jobs.address,
            WEBHOOK_POLL_INTERVAL_MS: '200',
            ...options.webhooks,
          },
          options.nodeArgs?.webhooks,
        )
      : undefined;
    if (webhooks) processes.push(webhooks);

    let provider: ServiceProcess | undefined;
    if (options.provider || (options.workers ?? 0) > 0) {
      provider = await startHttpServiceProcess('provider-sim', { ...options.env, PROVIDER_SIM_LATENCY_MS: '400', ...options.providerEnv });
      processes.push(provider);
    }
    const providerUrl = provider ? `http://${provider.address}` : undefined;

    const workers: ServiceProcess[] = [];
    const startWorker = async (env: Record<string, string> = {}) => {
      const worker = await startHttpServiceProcess('worker', {
        ...options.env,
        JOBS_ADDR: jobs.address,
        MEDIA_ADDR: media.address,
        CATALOG_ADDR: catalog.address,
        NATS_URL: natsUrl,
        NATS_STREAM_PREFIX: natsPrefix,
        PROVIDER_URL: providerUrl ?? 'http://127.0.0.1:1',
        WORKER_ACK_WAIT_INTERACTIVE_MS: '2000',
        WORKER_ACK_WAIT_BACKGROUND_MS: '2000',
        WORKER_POLL_INTERVAL_MS: '100',
        ...options.workerEnv,
        ...env,
      });
      workers.push(worker);
      processes.push(worker);
      return worker;
    };
    for (let i = 0; i < (options.workers ?? 0); i += 1) await startWorker();

    const startGateway = async (env: Record<string, string> = {}) => {
      if (!options.gateway) throw new Error('startGateway needs options.gateway (JWT_PUBLIC_KEY at least)');
      const started = await startHttpServiceProcess(
        'gateway',
        {
          ...options.env,
          CATALOG_ADDR: catalog.address,
          MEDIA_ADDR: media.address,
          JOBS_ADDR: jobs.address,
          COMMUNITY_ADDR: community!.address,
          ...(webhooks ? { WEBHOOKS_ADDR: webhooks.address } : {}),
          // The rate limit's shared counters: a bucket of this run's own prefix.
          NATS_URL: natsUrl,
          NATS_STREAM_PREFIX: natsPrefix,
          ...options.gateway,
          ...env,
        },
        { nodeArgs: options.nodeArgs?.gateway },
      );
      processes.push(started);
      return started;
    };
    const gateway = options.gateway ? await startGateway() : undefined;

    const platform: TestPlatform = {
      database,
      natsPrefix,
      natsUrl,
      productEventsUserKey: options.env?.PRODUCT_EVENTS_USER_KEY ?? testProductEventsKey(),
      catalog,
      media,
      petDirectory,
      jobs,
      community,
      webhooks,
      provider,
      gateway,
      workers,
      providerUrl,
      gatewayUrl: gateway ? `http://${gateway.address}` : undefined,
      startWorker,
      startGateway,
      async stopWorkers() {
        await Promise.all(workers.splice(0).map((worker) => worker.stop()));
      },
      async restart(service) {
        const old = platform[service];
        if (!old) throw new Error(`${service} was not started`);
        const next = await old.restart();
        processes.splice(processes.indexOf(old), 1, next);
        platform[service] = next;
        return next;
      },
      stop: cleanup,
    };
    return platform;
  } catch (error) {
    await cleanup();
    throw error;
  }
}

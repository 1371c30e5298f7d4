import { jobsAdminV1, jobsV1 } from '@atelier/contracts';
import type { PromiseClient } from '@atelier/grpc';
import {
  JOB_QUEUES,
  connectNats,
  deleteJobStreams,
  ensureWorkerConsumer,
  jetstreamManager,
  jobsTopology,
  type JetStreamManager,
  type JobsTopology,
  type NatsConnection,
} from '@atelier/nats';
import {
  createTestDatabase,
  natsTestPrefix,
  startGrpcServiceProcess,
  testNatsUrl,
  type ServiceProcess,
  type TestDatabase,
  testClient,
  testIdentityEnv,
} from '@atelier/testing';
import type { CliIo } from '../command-context.js';

/**
 * The real systems atelier-ops reads, for one test file: the jobs service as a process (its own
 * main.ts, configuration from the environment) on a database and a NATS stream prefix of its
 * own, both removed by stop(). Catalog and media are not started: the canary job needs neither.
 */
export interface OpsTestEnv {
  readonly database: TestDatabase;
  readonly jobs: ServiceProcess;
  readonly streamPrefix: string;
  readonly topology: JobsTopology;
  readonly nats: NatsConnection;
  readonly jsm: JetStreamManager;
  readonly jobsApi: PromiseClient<jobsV1.JobsServiceClient>;
  readonly admin: PromiseClient<jobsAdminV1.JobsAdminServiceClient>;
  /** The environment atelier-ops needs to reach these systems (plus what the test adds). */
  cliEnv(extra?: Record<string, string>): NodeJS.ProcessEnv;
  /** Declares the workers' durable consumers, as a worker does at start-up. */
  declareWorkerConsumers(): Promise<void>;
  /** Submits system.canary jobs (interactive queue) and answers their ids. */
  createCanaries(count: number): Promise<string[]>;
  stop(): Promise<void>;
}

let sequence = 0;

export async function startOpsTestEnv(jobsEnv: Record<string, string> = {}): Promise<OpsTestEnv> {
  const database = await createTestDatabase();
  const streamPrefix = natsTestPrefix();
  const topology = jobsTopology(streamPrefix);
  const nats = await connectNats({ servers: testNatsUrl(), name: 'ops-cli-test' });
  const jsm = await jetstreamManager(nats);
  const cleanUp = async (jobs: ServiceProcess | undefined) => {
    await jobs?.stop();
    await deleteJobStreams(jsm, topology);
    await nats.close();
    await database.drop();
  };
  let jobs: ServiceProcess;
  try {
    jobs = await startGrpcServiceProcess('jobs', {
      DATABASE_URL: database.url,
      NATS_URL: testNatsUrl(),
      NATS_STREAM_PREFIX: streamPrefix,
      // The canary needs no peer; nothing listens on port 1.
      CATALOG_ADDR: '127.0.0.1:1',
      MEDIA_ADDR: '127.0.0.1:1',
      OUTBOX_POLL_INTERVAL_MS: '100',
      REAPER_INTERVAL_MS: '3600000',
      DB_POOL_MAX: '4',
      ...jobsEnv,
    });
  } catch (error) {
    await cleanUp(undefined);
    throw error;
  }
  const jobsApi = await testClient(jobsV1.JobsServiceClient, jobs.address, 'gateway', { defaultDeadlineMs: 10_000 });
  const admin = await testClient(jobsAdminV1.JobsAdminServiceClient, jobs.address, 'ops', { defaultDeadlineMs: 10_000 });
  const userId = `ops-cli-test-${process.pid}`;
  const opsIdentity = await testIdentityEnv('ops');

  return {
    database,
    jobs,
    streamPrefix,
    topology,
    nats,
    jsm,
    jobsApi,
    admin,
    cliEnv: (extra = {}) => ({
      ...opsIdentity,
      JOBS_ADDR: jobs.address,
      NATS_URL: testNatsUrl(),
      NATS_STREAM_PREFIX: streamPrefix,
      ATELIER_OPS_TIMEOUT_MS: '3000',
      ...extra,
    }),
    async declareWorkerConsumers() {
      for (const queue of JOB_QUEUES) await ensureWorkerConsumer(jsm, topology, queue, { ackWaitMs: 60_000, maxDeliver: 20 });
    },
    async createCanaries(count) {
      const created = await Promise.all(
        Array.from({ length: count }, () =>
          jobsApi.createJob(jobsV1.CreateJobRequest.fromPartial({ userId, idempotencyKey: `ops-${++sequence}`, jobType: 'system.canary' })),
        ),
      );
      return created.map((response) => response.job!.id);
    },
    async stop() {
      jobsApi.close();
      admin.close();
      await cleanUp(jobs);
    },
  };
}

/** Polls until `check` holds; fails with `what` after the timeout. */
export async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** A CliIo whose output the test reads back. */
export function captureIo(env: NodeJS.ProcessEnv): CliIo & { out(): string; err(): string } {
  let out = '';
  let err = '';
  return {
    env,
    stdout: { write: (text: string) => (out += text) },
    stderr: { write: (text: string) => (err += text) },
    out: () => out,
    err: () => err,
  };
}

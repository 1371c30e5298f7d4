// The fault suite's platform: every service as a process (as in production), on a database and a
// nats-server (or a NATS cluster) of the suite's own — so a test can kill, stop and restart any
// part, the broker included — with the gateway and tokens for the mobile API, and readers of what the vendor
// (provider-sim) was asked to do.
import pg from 'pg';
import { SignJWT, exportSPKI, generateKeyPair } from 'jose';
import {
  MobileApi,
  startNatsCluster,
  startNatsServer,
  startTestPlatform,
  type NatsClusterProcess,
  type NatsServerProcess,
  type PlatformOptions,
  type TestPlatform,
} from '@atelier/testing';

/** provider-sim's API key in the test platform (its development default, not a secret). */
const PROVIDER_API_KEY = 'local-development';

export interface VendorPrediction {
  id: string;
  status: 'starting' | 'processing' | 'succeeded' | 'failed' | 'canceled';
  completed_at: string | null;
  idempotency_key: string | null;
}

export interface ChaosPlatform {
  platform: TestPlatform;
  /** The broker: the single nats-server, or the first node of the cluster. */
  nats: NatsServerProcess;
  /** Every node of the broker: [nats] for a single server. */
  natsNodes: readonly NatsServerProcess[];
  /** The mobile API as user `alice-<pid>`. */
  api: MobileApi;
  /** A token for another user (each user has their own quota). */
  tokenFor(subject: string): Promise<string>;
  /** A plain connection to the platform's database, for reading what the services wrote. */
  db: pg.Pool;
  /** Predictions the vendor created (charged) for a job: its Idempotency-Keys are `<jobId>` or `<jobId>:<n>`. */
  charges(jobId: string): Promise<number>;
  /**
   * Every POST /v1/predictions the vendor received for a job, replays of an Idempotency-Key and
   * refused ones included: a resubmission the vendor answered with the same prediction counts here.
   */
  vendorRequests(jobId: string): Promise<number>;
  /** The vendor's view of a prediction. */
  prediction(predictionId: string): Promise<VendorPrediction>;
  /** The provider request id the jobs service recorded for a job (null before the submission). */
  recordedPrediction(jobId: string): Promise<string | null>;
  /**
   * A job's transitions (job_events) and the workers' recent warnings and errors (a step retried
   * within an attempt logs no job id): the message of an assertion on how one job ran, so that a
   * failure says why without a re-run.
   */
  jobStory(jobId: string): Promise<string>;
  stop(): Promise<void>;
}

export interface ChaosPlatformOptions extends Omit<PlatformOptions, 'natsUrl' | 'gateway'> {
  /** A NATS cluster of this many nodes instead of one server, every stream with a copy on each. */
  natsCluster?: number;
}

export async function startChaosPlatform(options: ChaosPlatformOptions = {}): Promise<ChaosPlatform> {
  const broker: { url: string; nodes: readonly NatsServerProcess[]; close(): Promise<void> } | NatsClusterProcess = options.natsCluster
    ? await startNatsCluster({ size: options.natsCluster })
    : await startNatsServer().then((server) => ({ url: server.url, nodes: [server], close: () => server.close() }));
  const nats = broker.nodes[0]!;
  const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
  const tokenFor = (subject: string) =>
    new SignJWT({ roles: [] })
      .setProtectedHeader({ alg: 'EdDSA' })
      .setSubject(subject)
      .setIssuer('chaos')
      .setAudience('atelier-app')
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(privateKey);
  let platform: TestPlatform;
  try {
    platform = await startTestPlatform({
      workers: 1,
      ...options,
      // The production lease settings: faults must be survived with them, not with the short
      // leases other suites use to make crashes quick to recover from.
      jobsEnv: { LEASE_TTL_MS: '60000', REAPER_INTERVAL_MS: '10000', ...options.jobsEnv },
      natsUrl: broker.url,
      env: { ...options.env, ...(options.natsCluster ? { NATS_STREAM_REPLICAS: String(options.natsCluster) } : {}) },
      gateway: {
        JWT_PUBLIC_KEY: await exportSPKI(publicKey),
        JWT_ISSUER: 'chaos',
        JWT_AUDIENCE: 'atelier-app',
        // The load cases drive hundreds of requests a second as one user: what they measure is
        // the platform under faults, not the per-user rate limit.
        RATE_LIMIT_USER_MAX: '100000000',
        RATE_LIMIT_ADDRESS_MAX: '100000000',
      },
    });
  } catch (error) {
    await broker.close();
    throw error;
  }
  /** The vendor's counts of a job's Idempotency-Keys (`<jobId>` or `<jobId>:<n>`), summed. */
  const vendorCount = async (jobId: string, count: 'submissions' | 'requests') => {
    const stats = (await (await fetch(`${providerUrl}/v1/stats`)).json()) as {
      by_key: Record<string, { submissions: number; requests: number }>;
    };
    return Object.entries(stats.by_key)
      .filter(([key]) => key === jobId || key.startsWith(`${jobId}:`))
      .reduce((sum, [, counts]) => sum + counts[count], 0);
  };
  const db = new pg.Pool({ connectionString: platform.database.url, max: 2 });
  db.on('error', () => {});
  const providerUrl = platform.providerUrl!;
  return {
    platform,
    nats,
    natsNodes: broker.nodes,
    api: new MobileApi(platform.gatewayUrl!, await tokenFor(`alice-${process.pid}`)),
    tokenFor,
    db,
    charges: (jobId) => vendorCount(jobId, 'submissions'),
    vendorRequests: (jobId) => vendorCount(jobId, 'requests'),
    async prediction(predictionId) {
      const response = await fetch(`${providerUrl}/v1/predictions/${predictionId}`, {
        headers: { authorization: `Bearer ${PROVIDER_API_KEY}` },
      });
      if (!response.ok) throw new Error(`provider-sim answered ${response.status} for prediction ${predictionId}`);
      return (await response.json()) as VendorPrediction;
    },
    async recordedPrediction(jobId) {
      const { rows } = await db.query<{ provider_request_id: string | null }>(
        'SELECT provider_request_id FROM jobs.generation_jobs WHERE id = $1',
        [jobId],
      );
      return rows[0]?.provider_request_id ?? null;
    },
    async jobStory(jobId) {
      const { rows } = await db.query<Record<string, unknown>>(
        `SELECT occurred_at, from_status, to_status, attempt, actor, error_class, error_code, detail
           FROM jobs.job_events WHERE job_id = $1 ORDER BY id`,
        [jobId],
      );
      const events = rows.map((row) => JSON.stringify(row));
      const logLines = platform.workers.flatMap((worker) =>
        worker
          .output()
          .split('\n')
          .filter((line) => /"level":"(warn|error|fatal)"/.test(line)),
      );
      return [`job ${jobId} events:`, ...events, "workers' warnings and errors:", ...logLines, '(end of the story)'].join('\n');
    },
    async stop() {
      await db.end();
      await platform.stop();
      await broker.close();
    },
  };
}

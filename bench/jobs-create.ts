// Benchmark: CreateJob throughput over gRPC, and outbox publish latency (commit → JetStream).
//
//   npm run bench:jobs
//
// Starts catalog, media and jobs as real processes against a database of their own on the local
// Postgres and a NATS prefix of their own, then drives CreateJob from this process. Publish
// latency is measured from the CreateJob response (the transaction has committed) to the
// dispatch message arriving at a NATS subscriber on its subject (JetStream has stored it).
//
// Shape of the image.stylize scenario, as the app uses it: BENCH_USERS users (default 256), each
// with an ai_input image of their own uploaded through media, create jobs from BENCH_CONCURRENCY
// callers at once, every create under its own idempotency key; a user's creates are counted
// against their quota (under their lock), so creates of different users do not wait for each other.
// Each scenario also reports CPU ms per create of jobs, catalog, media and Postgres (from /proc:
// this run's database backends, and the whole server, where others' load shows on a shared machine).
//
//   BENCH_SCENARIOS=stylize      only some scenarios (canary, stylize, quiet; default all)
//   BENCH_PROFILE=<dir>          --cpu-prof of jobs, catalog and media into <dir>/<service>
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { catalogV1, jobsV1, mediaV1 } from '@atelier/contracts';
import { connectNats, deleteJobStreams, jetstreamManager, jobsTopology } from '@atelier/nats';
import { createTestDatabase, natsTestPrefix, startGrpcServiceProcess, testClient, testNatsUrl } from '@atelier/testing';
import { closedLoop, ms, percentile, printTable } from './bench-kit.js';
import { stylizeCreates, stylizeUsers } from './stylize-creates.js';
import { CpuMeter, databaseBackendsCpu, familyCpuMs, processCpuMs } from './process-cpu.js';

const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? 8_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const USERS = Number(process.env.BENCH_USERS ?? 256);
const SCENARIOS = new Set((process.env.BENCH_SCENARIOS ?? 'canary,stylize,quiet').split(',').map((name) => name.trim()));
const profile = (service: string) =>
  process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${path.join(process.env.BENCH_PROFILE, service)}`] : [];

const database = await createTestDatabase();
const ourBackends = databaseBackendsCpu(database.name);
const s3Directory = mkdtempSync(path.join(tmpdir(), 'atelier-bench-s3-'));
const prefix = natsTestPrefix();
const [catalog, media] = await Promise.all([
  startGrpcServiceProcess('catalog', { DATABASE_URL: database.url, NATS_STREAM_PREFIX: prefix }, profile('catalog')),
  startGrpcServiceProcess('media', { DATABASE_URL: database.url, S3_EMBEDDED_PORT: '0', S3_EMBEDDED_DIR: s3Directory }, profile('media')),
]);
const jobs = await startGrpcServiceProcess(
  'jobs',
  {
    DATABASE_URL: database.url,
    NATS_STREAM_PREFIX: prefix,
    CATALOG_ADDR: catalog.address,
    MEDIA_ADDR: media.address,
    QUOTA_DAILY_LIMIT: '1000000',
    QUOTA_MONTHLY_LIMIT: '1000000',
    QUOTA_MAX_IN_FLIGHT: '10000',
  },
  profile('jobs'),
);
const nats = await connectNats({ servers: testNatsUrl(), name: 'bench' });
const topology = jobsTopology(prefix);

const jobsClient = await testClient(jobsV1.JobsServiceClient, jobs.address, 'gateway');
const catalogClient = await testClient(catalogV1.CatalogServiceClient, catalog.address, 'gateway');
const mediaClient = await testClient(mediaV1.MediaServiceClient, media.address, 'gateway');

// Dispatch arrival times, by job id.
const arrivals = new Map<string, number>();
const subscription = nats.subscribe(`${topology.dispatchSubject('interactive').replace(/\.interactive$/, '')}.*`, {
  callback: (_error, message) => {
    const { jobId } = message.json<{ jobId: string }>();
    arrivals.set(jobId, performance.now());
  },
});
await nats.flush();

/** CPU of each process while a scenario ran, per create. */
const meter = () =>
  new CpuMeter({
    jobs: () => processCpuMs(jobs.child.pid),
    catalog: () => processCpuMs(catalog.child.pid),
    media: () => processCpuMs(media.child.pid),
    'postgres (this db)': () => ourBackends.read(),
    'postgres (all)': () => familyCpuMs('postgres'),
    bench: () => processCpuMs(process.pid),
  });
const cpuRows: Record<string, string | number>[] = [];
function recordCpu(scenario: string, spent: Record<string, number>, creates: number): void {
  const perCreate = Object.fromEntries(Object.entries(spent).map(([part, cpuMs]) => [part, ms(cpuMs / Math.max(1, creates))]));
  // Ours: the services and this database's backends (the machine-wide figure includes others' load).
  const total = ['jobs', 'catalog', 'media', 'postgres (this db)'].reduce((sum, part) => sum + perCreate[part]!, 0);
  cpuRows.push({ scenario, ...perCreate, 'ours ms/create': ms(total) });
}

async function publishLatencies(created: Map<string, number>, timeoutMs = 15_000): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && [...created.keys()].some((id) => !arrivals.has(id))) await new Promise((r) => setTimeout(r, 50));
  return [...created].filter(([id]) => arrivals.has(id)).map(([id, at]) => arrivals.get(id)! - at);
}

try {
  const results: Record<string, string | number>[] = [];
  const firstErrors: unknown[] = [];

  // 1. system.canary: the engine alone (validation, idempotency, one insert statement, outbox).
  if (SCENARIOS.has('canary')) {
    const canaryCreated = new Map<string, number>();
    const cpu = meter();
    const canary = await closedLoop(
      async (i) => {
        const { job } = await jobsClient.createJob(
          jobsV1.CreateJobRequest.fromPartial({ userId: `bench-${i % 500}`, idempotencyKey: `canary-${i}`, jobType: 'system.canary' }),
        );
        canaryCreated.set(job!.id, performance.now());
      },
      { concurrency: CONCURRENCY, durationMs: DURATION_MS },
    );
    recordCpu('CreateJob system.canary', cpu.spent(), canaryCreated.size);
    const canaryPublish = await publishLatencies(canaryCreated);
    results.push({
      scenario: `CreateJob system.canary, ${CONCURRENCY} concurrent`,
      'jobs/s': Math.round(canary.opsPerSecond),
      'rpc p50 ms': ms(percentile(canary.latenciesMs, 50)),
      'rpc p99 ms': ms(percentile(canary.latenciesMs, 99)),
      'publish p50 ms': ms(percentile(canaryPublish, 50)),
      'publish p99 ms': ms(percentile(canaryPublish, 99)),
      errors: canary.errors,
    });
    if (canary.firstError) firstErrors.push(canary.firstError);
  }

  // 2. image.stylize: peer validation over gRPC (catalog, media), quota under each user's lock.
  if (SCENARIOS.has('stylize')) {
    const clients = { jobs: jobsClient, catalog: catalogClient, media: mediaClient };
    const inputs = await stylizeUsers(clients, 'stylize-user', USERS);
    const stylizeCreated = new Map<string, number>();
    const cpu = meter();
    const stylize = await stylizeCreates(clients, inputs, {
      concurrency: CONCURRENCY,
      durationMs: DURATION_MS,
      keyPrefix: 'stylize',
      onCreated: (jobId) => stylizeCreated.set(jobId, performance.now()),
    });
    recordCpu('CreateJob image.stylize', cpu.spent(), stylizeCreated.size);
    const stylizePublish = await publishLatencies(stylizeCreated);
    results.push({
      scenario: `CreateJob image.stylize, ${CONCURRENCY} concurrent, ${USERS} users`,
      'jobs/s': Math.round(stylize.opsPerSecond),
      'rpc p50 ms': ms(percentile(stylize.latenciesMs, 50)),
      'rpc p99 ms': ms(percentile(stylize.latenciesMs, 99)),
      'publish p50 ms': ms(percentile(stylizePublish, 50)),
      'publish p99 ms': ms(percentile(stylizePublish, 99)),
      errors: stylize.errors,
    });
    if (stylize.firstError) firstErrors.push(stylize.firstError);
  }

  // 3. Publish latency at low load: one create at a time.
  if (SCENARIOS.has('quiet')) {
    const quietCreated = new Map<string, number>();
    for (let i = 0; i < 300; i += 1) {
      const { job } = await jobsClient.createJob(
        jobsV1.CreateJobRequest.fromPartial({ userId: 'quiet', idempotencyKey: `quiet-${i}`, jobType: 'system.canary' }),
      );
      quietCreated.set(job!.id, performance.now());
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const quietPublish = await publishLatencies(quietCreated);
    results.push({
      scenario: 'CreateJob system.canary, one at a time',
      'jobs/s': '-',
      'rpc p50 ms': '-',
      'rpc p99 ms': '-',
      'publish p50 ms': ms(percentile(quietPublish, 50)),
      'publish p99 ms': ms(percentile(quietPublish, 99)),
      errors: 0,
    });
  }

  if (process.env.BENCH_SHOW_LOGS) console.log(jobs.output().slice(0, 3000));
  if (process.env.BENCH_SHOW_SERVER_TIMES) {
    // Time spent inside jobs per CreateJob (its gRPC server histogram), beside the caller's view.
    const text = await (await fetch(`http://127.0.0.1:${jobs.metricsPort}/metrics`)).text();
    console.log(
      text
        .split('\n')
        .filter((line) => line.includes('CreateJob') && line.includes('_bucket'))
        .join('\n'),
    );
  }
  printTable(`jobs: CreateJob over gRPC and outbox publish latency (${DURATION_MS / 1000} s per scenario, 2-core machine)`, results);
  if (cpuRows.length > 0) {
    printTable(
      'CPU ms per create, warm-up included (from /proc; "ours" = jobs + catalog + media + this database\'s Postgres backends; bench is this driver)',
      cpuRows,
    );
  }
  if (firstErrors.length > 0) console.error('first error:', firstErrors[0]);
} finally {
  subscription.unsubscribe();
  jobsClient.close();
  catalogClient.close();
  mediaClient.close();
  await Promise.all([jobs.stop(), catalog.stop(), media.stop()]);
  await deleteJobStreams(await jetstreamManager(nats), topology);
  await nats.close();
  rmSync(s3Directory, { recursive: true, force: true });
  await database.drop();
}

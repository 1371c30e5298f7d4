// Benchmark: the whole job pipeline against graphile-worker, side by side on the same Postgres.
//
//   npm run bench:pipeline
//
// Ours: system.canary jobs end to end — CreateJob over gRPC → outbox → JetStream → worker →
// ClaimJob/CompleteJob → succeeded — with 1 and 2 worker processes, plus a drain of pre-created
// jobs (the shape graphile-worker's own benchmark has: jobs queued first, then processed), plus
// submit→start and submit→done latency at low load, plus image.stylize through provider-sim.
// Peer: graphile-worker 0.17 (default settings, one process, concurrency 24) running no-op jobs.
// BENCH_PG_STATEMENT_LOG=1 logs every statement of the run's database with its parse, bind and
// execute times to the Postgres server's log (a plan made anew at every bind shows there).
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { Logger, run } from 'graphile-worker';
import { catalogV1, commonV1, jobsV1, mediaV1 } from '@atelier/contracts';
import { connectNats, deleteJobStreams, jetstreamManager, jobsTopology } from '@atelier/nats';
import {
  createTestDatabase,
  freePort,
  natsTestPrefix,
  startGrpcServiceProcess,
  startProcess,
  testClient,
  testIdentityEnv,
  testNatsUrl,
  type ServiceProcess,
  testPng,
} from '@atelier/testing';
import { closedLoop, forEachConcurrently, ms, percentile, printTable } from './bench-kit.js';
import { stylizeCreates, stylizeUsers } from './stylize-creates.js';
import { CpuMeter, databaseBackendsCpu, familyCpuMs, processCpuMs, reapedChildrenCpuMs } from './process-cpu.js';

const E2E_SECONDS = Number(process.env.BENCH_E2E_SECONDS ?? 10);
const DRAIN_JOBS = Number(process.env.BENCH_DRAIN_JOBS ?? 10_000);
const GRAPHILE_JOBS = Number(process.env.BENCH_GRAPHILE_JOBS ?? 20_000);
const LATENCY_SAMPLES = Number(process.env.BENCH_LATENCY_SAMPLES ?? 200);
const LATENCY_WARM_UP = 20;
// A canary is a no-op, so a worker's concurrency is just how many are in flight at once (cheap,
// asynchronous); 1000 matches JetStream's default max_ack_pending. Measured here: drain of 10 000
// with one worker at concurrency 64 → ~1 130/s, 256 → ~1 780/s, 1 000 → ~2 470/s.
const WORKER_CONCURRENCY = process.env.BENCH_WORKER_CONCURRENCY ?? '1000';
const CREATORS = Number(process.env.BENCH_CREATORS ?? 256);
/** CreateJob image.stylize as bench:jobs drives it: 32 callers over 256 users with an input each. */
const CREATORS_STYLIZE = Number(process.env.BENCH_STYLIZE_CREATORS ?? 32);
const STYLIZE_USERS = Number(process.env.BENCH_STYLIZE_USERS ?? 256);
const execFileAsync = promisify(execFile);
const sleep = (msValue: number) => new Promise((resolve) => setTimeout(resolve, msValue));
/** BENCH_ONLY=e2e,drain,latency,stylize,graphile,create runs a subset (all by default). */
const only = new Set((process.env.BENCH_ONLY ?? 'e2e,drain,latency,stylize,graphile,create').split(','));

// ---------------------------------------------------------------- the platform under test
const database = await createTestDatabase();
if (process.env.BENCH_PG_STATEMENT_LOG) {
  // Every statement of this database, with its parse, bind and execute times, in the Postgres
  // server's log: how the planning of the claim and the quota create was found (bench/README.md).
  const admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  await admin.query(`ALTER DATABASE "${database.name}" SET log_min_duration_statement = 0`);
  await admin.end();
}
const s3Directory = mkdtempSync(path.join(tmpdir(), 'atelier-bench-s3-'));
const prefix = natsTestPrefix();
const processes: ServiceProcess[] = [];
const profile = process.env.BENCH_PROFILE
  ? (name: string) => ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}/${name}`]
  : () => [];
const [catalog, media] = await Promise.all([
  startGrpcServiceProcess('catalog', { DATABASE_URL: database.url }),
  startGrpcServiceProcess('media', { DATABASE_URL: database.url, S3_EMBEDDED_PORT: '0', S3_EMBEDDED_DIR: s3Directory }),
]);
processes.push(catalog, media);
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
    LOG_LEVEL: 'warn',
  },
  profile('jobs'),
);
processes.push(jobs);
const providerPort = await freePort();
const provider = await startProcess({
  name: 'provider-sim',
  entry: 'services/provider-sim/src/main.ts',
  port: providerPort,
  env: { HTTP_PORT: String(providerPort), LOG_LEVEL: 'warn', PROVIDER_SIM_LATENCY_MS: process.env.BENCH_PROVIDER_LATENCY_MS ?? '300' },
  ready: async (address) => (await fetch(`http://${address}/healthz`)).ok,
});
processes.push(provider);

async function startWorkers(count: number, concurrency = WORKER_CONCURRENCY): Promise<ServiceProcess[]> {
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const port = await freePort();
      const worker = await startProcess({
        name: `worker-${i}`,
        entry: 'services/worker/src/main.ts',
        port,
        env: {
          HTTP_PORT: String(port),
          ...(await testIdentityEnv('worker')),
          JOBS_ADDR: jobs.address,
          MEDIA_ADDR: media.address,
          NATS_STREAM_PREFIX: prefix,
          PROVIDER_URL: `http://${provider.address}`,
          WORKER_CONCURRENCY_INTERACTIVE: concurrency,
          // The consumer's cap on messages in hand is shared by all workers: sized to all of them.
          WORKER_MAX_ACK_PENDING: String(count * Number(concurrency)),
          WORKER_CONCURRENCY_BACKGROUND: '1',
          WORKER_POLL_INTERVAL_MS: '50',
          LOG_LEVEL: 'warn',
        },
        ready: async (address) => (await fetch(`http://${address}/readyz`)).ok,
        nodeArgs: profile(`worker-${i}`),
      });
      processes.push(worker);
      return worker;
    }),
  );
}

const jobsClient = await testClient(jobsV1.JobsServiceClient, jobs.address, 'gateway', { defaultDeadlineMs: 30_000 });
const db = new pg.Client({ connectionString: database.url });
await db.connect();
// This machine's Postgres runs without autovacuum, so the jobs tables would never be analyzed and
// the planner would take them for empty, as no live system's would be: analyze them every few
// seconds, as autovacuum's auto-analyze does once a tenth of a table has changed.
const analyzer = new pg.Client({ connectionString: database.url });
await analyzer.connect();
const analyzing = setInterval(() => {
  analyzer.query('ANALYZE jobs.generation_jobs, jobs.outbox, jobs.job_events').catch(() => {});
}, 3_000);

async function waitAllDone(userPrefix: string, expected: number, timeoutMs = 300_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const { rows } = await db.query(`SELECT count(*)::int AS n FROM jobs.generation_jobs WHERE user_id LIKE $1 AND status = 'succeeded'`, [
      `${userPrefix}%`,
    ]);
    if (rows[0].n >= expected) return;
    await sleep(100);
  }
  throw new Error(`only some of ${expected} jobs finished in time`);
}

async function timesOf(userPrefix: string): Promise<{ first: number; last: number }> {
  const { rows } = await db.query(
    `SELECT extract(epoch FROM min(created_at)) * 1000 AS first, extract(epoch FROM max(completed_at)) * 1000 AS last
       FROM jobs.generation_jobs WHERE user_id LIKE $1`,
    [`${userPrefix}%`],
  );
  return { first: Number(rows[0].first), last: Number(rows[0].last) };
}

const canary = (user: string, key: string) =>
  jobsV1.CreateJobRequest.fromPartial({ userId: user, idempotencyKey: key, jobType: 'system.canary' });
const results: Record<string, string | number>[] = [];
const ours: Record<string, number> = {};
/** CPU ms per job of each part, by scenario (from /proc: see bench/process-cpu.ts). */
const cpuPerJob: Record<string, string | number>[] = [];
const cpuTotals: Record<string, Record<string, number>> = {};

/**
 * Our processes' CPU: the jobs service, these workers, the Postgres backends of this run's
 * database (others' load on the shared server is not ours) and the shared nats-server.
 */
const ourBackends = databaseBackendsCpu(database.name);
const atelierMeter = (workers: ServiceProcess[]) =>
  new CpuMeter({
    jobs: () => processCpuMs(jobs.child.pid),
    worker: () => workers.reduce((sum, worker) => sum + processCpuMs(worker.child.pid), 0),
    postgres: () => ourBackends.read(),
    'nats-server': () => familyCpuMs('nats-server'),
  });

function recordCpu(scenario: string, key: string, spent: Record<string, number>, jobCount: number): void {
  const perJob = Object.fromEntries(Object.entries(spent).map(([part, cpuMs]) => [part, cpuMs / jobCount]));
  const total = Object.values(perJob).reduce((sum, value) => sum + value, 0);
  cpuTotals[key] = { ...perJob, total };
  cpuPerJob.push({
    scenario,
    ...Object.fromEntries(Object.entries(perJob).map(([part, value]) => [part, Math.round(value * 1000) / 1000])),
    'total ms/job': Math.round(total * 1000) / 1000,
  });
}

/**
 * CPU per job for each scenario, the ratio to graphile-worker's, and what those costs project to
 * on a bigger machine (a projection, not a measurement: see the assumptions printed with it).
 */
function printCpu(): void {
  if (cpuPerJob.length === 0) return;
  printTable(
    "CPU per job (ms of CPU, from /proc; postgres: the backends of the run's own database; nats-server: the whole server)",
    cpuPerJob,
  );
  const peer = cpuTotals.graphile;
  const drain = cpuTotals.drain1;
  if (peer && drain) console.log(`\ntotal CPU per canary, drain with 1 worker / graphile-worker: ${ms(drain.total! / peer.total!)}`);
  const e2e = cpuTotals.e2e1 ?? drain;
  if (!e2e) return;
  const shape = { workerPods: 8, jobsReplicas: 4, postgresCores: 8, natsCores: 2 };
  const ceilings = {
    [`${shape.workerPods} worker pods × 1 core`]: (shape.workerPods * 1000) / e2e.worker!,
    [`${shape.jobsReplicas} jobs replicas × 1 core`]: (shape.jobsReplicas * 1000) / e2e.jobs!,
    [`Postgres, ${shape.postgresCores} cores`]: (shape.postgresCores * 1000) / e2e.postgres!,
    [`nats-server, ${shape.natsCores} cores`]: (shape.natsCores * 1000) / e2e['nats-server']!,
  };
  console.log('\nprojection (end to end, 1 worker, CPU per job as measured above; assumes each part scales linearly');
  console.log('with its cores, no lock or I/O limit, and Postgres as one shared server — the part that cannot be');
  console.log('multiplied by adding pods):');
  console.table(Object.entries(ceilings).map(([part, jobsPerSecond]) => ({ 'ceiling of': part, 'jobs/s': Math.round(jobsPerSecond) })));
  const [bottleneck, rate] = Object.entries(ceilings).sort((a, b) => a[1] - b[1])[0]!;
  console.log(`→ about ${Math.round(rate)} jobs/s, bounded by ${bottleneck}`);
  if (peer) {
    console.log(
      `  graphile-worker on the same shape: Postgres ${ms(peer.postgres!)} ms/job → about ${Math.round((shape.postgresCores * 1000) / peer.postgres!)} jobs/s from its Postgres ceiling`,
    );
  }
}

/** The figures issue 15 set goals for, beside graphile-worker's, with the ratio and whether it is met. */
function printGoals(): void {
  const peerCpu = cpuTotals.graphile?.total;
  const rows: { measure: string; atelier?: number; peer?: number; goal: string; absolute?: boolean }[] = [
    { measure: 'drain, 1 worker (jobs/s)', atelier: ours.drain1, peer: ours.graphileRate, goal: '≥ 1.0' },
    { measure: 'end to end incl. CreateJob, 1 worker (jobs/s)', atelier: ours.e2e1, peer: ours.graphileRate, goal: '≥ 0.8' },
    { measure: 'drain, 2 worker processes vs 1 (jobs/s)', atelier: ours.drain2, peer: ours.drain1, goal: '≥ 1.0' },
    { measure: 'submit→start p50 (ms)', atelier: ours.startP50, peer: ours.graphileP50, goal: '≤ 2' },
    { measure: 'submit→start p99 (ms)', atelier: ours.startP99, peer: ours.graphileP99, goal: '≤ 2' },
    { measure: 'CPU per canary, drain 1 worker (ms)', atelier: cpuTotals.drain1?.total, peer: peerCpu, goal: '≤ 1.5' },
    // Goals of their own, with no peer: the figure itself is held against the bound.
    { measure: `CreateJob image.stylize, ${CREATORS_STYLIZE} callers (jobs/s)`, atelier: ours.stylizeRate, goal: '≥ 800', absolute: true },
    { measure: 'CreateJob image.stylize p99 (ms)', atelier: ours.stylizeP99, goal: '≤ 50', absolute: true },
  ];
  console.log(
    '\ngoals (ratio = atelier / peer; the peer is graphile-worker, or 1 worker process for the 2-process row; rows without a peer hold the figure itself against the goal):',
  );
  console.table(
    rows
      .filter((row) => row.atelier !== undefined && (row.absolute || row.peer !== undefined))
      .map((row) => {
        const compared = row.absolute ? row.atelier! : row.atelier! / row.peer!;
        const [sign, bound] = [row.goal.slice(0, 1), Number(row.goal.slice(2))];
        return {
          measure: row.measure,
          atelier: ms(row.atelier!),
          peer: row.absolute ? '-' : ms(row.peer!),
          ratio: row.absolute ? '-' : ms(compared),
          goal: row.goal,
          met: sign === '≥' ? compared >= bound : compared <= bound,
        };
      }),
  );
}

try {
  // ---------------------------------------------------------------- ours: end to end
  for (const workerCount of only.has('e2e') ? [1, 2] : []) {
    const workers = await startWorkers(workerCount);
    const userPrefix = `e2e${workerCount}-`;
    const meter = atelierMeter(workers);
    const created = await closedLoop(
      async (i) => {
        await jobsClient.createJob(canary(`${userPrefix}${i % 200}`, `k${i}`));
      },
      { concurrency: CREATORS, durationMs: E2E_SECONDS * 1000, warmupMs: 0 },
    );
    const { rows } = await db.query(`SELECT count(*)::int AS n FROM jobs.generation_jobs WHERE user_id LIKE $1`, [`${userPrefix}%`]);
    await waitAllDone(userPrefix, rows[0].n);
    recordCpu(`atelier end to end (CreateJob included), ${workerCount} worker(s)`, `e2e${workerCount}`, meter.spent(), rows[0].n);
    const { first, last } = await timesOf(userPrefix);
    const rate = rows[0].n / ((last - first) / 1000);
    ours[`e2e${workerCount}`] = rate;
    results.push({
      system: 'atelier',
      scenario: `system.canary end to end, ${workerCount} worker process(es) × ${WORKER_CONCURRENCY}`,
      'jobs/s': Math.round(rate),
      detail: `${rows[0].n} jobs; CreateJob ${Math.round(created.opsPerSecond)}/s, p99 ${ms(percentile(created.latenciesMs, 99))} ms`,
    });
    await Promise.all(workers.map((w) => w.stop()));
  }

  // ---------------------------------------------------------------- ours: drain of pre-created jobs
  if (only.has('drain')) {
    const userPrefix = 'drain-';
    await forEachConcurrently(DRAIN_JOBS, CREATORS, async (i) => {
      await jobsClient.createJob(canary(`${userPrefix}${i % 200}`, `d${i}`));
    });
    const probe = await connectNats({ servers: testNatsUrl(), name: 'bench-probe' });
    const jsm = await jetstreamManager(probe);
    while ((await jsm.streams.info(jobsTopology(prefix).jobsStream)).state.messages < DRAIN_JOBS) await sleep(100);
    for (const workerCount of [1, 2]) {
      if (workerCount === 2) {
        // Re-queue the same jobs for the second round: fresh jobs, same shape.
        await forEachConcurrently(DRAIN_JOBS, CREATORS, async (i) => {
          await jobsClient.createJob(canary(`drain2-${i % 200}`, `e${i}`));
        });
        while ((await jsm.streams.info(jobsTopology(prefix).jobsStream)).state.messages < DRAIN_JOBS) await sleep(100);
      }
      const round = workerCount === 1 ? 'drain-' : 'drain2-';
      // The jobs just queued, on tables cleaned of the end-to-end rounds' dead row versions: else
      // the drain's rate depends on how many jobs those rounds made and when autovacuum runs
      // (graphile-worker drains a database of its own).
      await db.query('VACUUM ANALYZE jobs.generation_jobs, jobs.outbox, jobs.job_events');
      const startedAt = Date.now();
      const workers = await startWorkers(workerCount);
      // From the moment the workers are ready: their start-up (transpiling, connecting) is no job's cost.
      const meter = atelierMeter(workers);
      const doneBefore = (
        await db.query(`SELECT count(*)::int AS n FROM jobs.generation_jobs WHERE user_id LIKE $1 AND status = 'succeeded'`, [`${round}%`])
      ).rows[0].n as number;
      await waitAllDone(round, DRAIN_JOBS);
      recordCpu(`atelier drain, ${workerCount} worker(s)`, `drain${workerCount}`, meter.spent(), DRAIN_JOBS - doneBefore);
      const { rows } = await db.query(
        `SELECT extract(epoch FROM max(completed_at)) * 1000 AS last FROM jobs.generation_jobs WHERE user_id LIKE $1`,
        [`${round}%`],
      );
      const rate = DRAIN_JOBS / ((Number(rows[0].last) - startedAt) / 1000);
      ours[`drain${workerCount}`] = rate;
      results.push({
        system: 'atelier',
        scenario: `system.canary drain of ${DRAIN_JOBS} queued jobs, ${workerCount} worker process(es) × ${WORKER_CONCURRENCY}`,
        'jobs/s': Math.round(rate),
        detail: 'first claim to last completion',
      });
      await Promise.all(workers.map((w) => w.stop()));
    }
    await probe.close();
  }

  // ---------------------------------------------------------------- ours: latency at low load
  if (only.has('latency')) {
    const [worker] = await startWorkers(1, '8');
    const meter = atelierMeter([worker!]);
    // When each dispatch is on the bus: a plain subscriber of the dispatch subject gets every
    // message JetStream stores there, as the worker's consumer does. (The outbox row's
    // published_at is when the relay's settling statement ran, after the publish's ack: later.)
    const busWatch = await connectNats({ servers: testNatsUrl(), name: 'bench-bus-watch' });
    const onBus = new Map<string, number>();
    const wallClockMs = () => performance.timeOrigin + performance.now();
    busWatch.subscribe(jobsTopology(prefix).dispatchSubject('interactive'), {
      callback: (_error, message) => {
        onBus.set((message.json() as { jobId: string }).jobId, wallClockMs());
      },
    });
    await busWatch.flush();
    const ids: { id: string; submittedAt: number; answeredAt: number }[] = [];
    // The first 20 warm connections, statements and code up, as on graphile-worker's side.
    for (let i = -LATENCY_WARM_UP; i < LATENCY_SAMPLES; i += 1) {
      const submittedAt = wallClockMs();
      const { job } = await jobsClient.createJob(canary('latency', `l${i}`));
      if (i >= 0) ids.push({ id: job!.id, submittedAt, answeredAt: wallClockMs() });
      await sleep(20);
    }
    await waitAllDone('latency', LATENCY_SAMPLES + LATENCY_WARM_UP);
    recordCpu('atelier one job at a time (warm-up included; nothing batched)', 'latency', meter.spent(), LATENCY_SAMPLES + LATENCY_WARM_UP);
    await busWatch.close();
    // Where the time goes: the job's insert and its claim are their transactions' starts (the
    // database's clock, the same machine's); the bus is the subscriber's clock.
    const { rows } = await db.query(
      `SELECT j.id::text, extract(epoch FROM j.started_at) * 1000 AS started, extract(epoch FROM j.completed_at) * 1000 AS completed,
              extract(epoch FROM j.created_at) * 1000 AS inserted
         FROM jobs.generation_jobs j
        WHERE j.user_id = 'latency'`,
    );
    type Times = { id: string; started: string; completed: string; inserted: string };
    const byId = new Map(rows.map((r: Times) => [r.id, r]));
    // The first claim's started_at is the attempt's start; it is reset only on retries (none here).
    const times = ids.map((sample) => {
      const row = byId.get(sample.id)!;
      return {
        ...sample,
        inserted: Number(row.inserted),
        started: Number(row.started),
        completed: Number(row.completed),
        onBus: onBus.get(sample.id),
      };
    });
    const toStart = times.map((t) => t.started - t.submittedAt);
    const toDone = times.map((t) => t.completed - t.submittedAt);
    ours.startP50 = percentile(toStart, 50);
    ours.startP99 = percentile(toStart, 99);
    results.push({
      system: 'atelier',
      scenario: `system.canary one at a time (${LATENCY_SAMPLES} jobs)`,
      'jobs/s': '-',
      detail: `submit→start p50 ${ms(percentile(toStart, 50))} / p99 ${ms(percentile(toStart, 99))} ms; submit→done p50 ${ms(percentile(toDone, 50))} / p99 ${ms(percentile(toDone, 99))} ms`,
    });
    const leg = (name: string, values: number[]) => `${name} ${ms(percentile(values, 50))} / ${ms(percentile(values, 99))}`;
    const seen = times.filter((t) => t.onBus !== undefined);
    results.push({
      system: 'atelier',
      scenario: '  where submit→start goes (p50 / p99 ms)',
      'jobs/s': '-',
      detail: [
        leg(
          'submit→insert',
          times.map((t) => t.inserted - t.submittedAt),
        ),
        leg(
          'insert→on the bus',
          seen.map((t) => t.onBus! - t.inserted),
        ),
        leg(
          'on the bus→claim',
          seen.map((t) => t.started - t.onBus!),
        ),
        leg(
          '(CreateJob answered)',
          times.map((t) => t.answeredAt - t.submittedAt),
        ),
      ].join('; '),
    });
    await worker!.stop();
  }

  // ---------------------------------------------------------------- ours: image.stylize through provider-sim
  if (only.has('stylize')) {
    const catalogClient = await testClient(catalogV1.CatalogServiceClient, catalog.address, 'gateway');
    const mediaClient = await testClient(mediaV1.MediaServiceClient, media.address, 'gateway');
    const { models, styles } = await catalogClient.getCatalog({ mediaKind: commonV1.MediaKind.IMAGE });
    const png = await testPng(256, 256);
    const upload = await mediaClient.createUpload({
      ownerUserId: 'stylize-bench',
      purpose: mediaV1.AssetPurpose.AI_INPUT,
      contentType: 'image/png',
      sizeBytes: png.length,
    });
    await fetch(upload.uploadUrl, { method: 'PUT', headers: upload.uploadHeaders, body: png });
    await mediaClient.completeUpload({ assetId: upload.asset!.id, ownerUserId: 'stylize-bench' });
    const count = Number(process.env.BENCH_STYLIZE_JOBS ?? 200);
    const workers = await startWorkers(2, '16');
    const startedAt = Date.now();
    await Promise.all(
      Array.from({ length: count }, (_, i) =>
        jobsClient.createJob(
          jobsV1.CreateJobRequest.fromPartial({
            userId: 'stylize-bench',
            idempotencyKey: `s${i}`,
            jobType: 'image.stylize',
            modelId: models.find((m) => m.jobType === 'image.stylize')!.id,
            styleId: styles[i % styles.length]!.id,
            inputAssetId: upload.asset!.id,
            prompt: 'benchmark',
          }),
        ),
      ),
    );
    await waitAllDone('stylize-bench', count);
    const rate = count / ((Date.now() - startedAt) / 1000);
    results.push({
      system: 'atelier',
      scenario: `image.stylize through provider-sim (${process.env.BENCH_PROVIDER_LATENCY_MS ?? 300} ms per prediction), 2 workers × 16`,
      'jobs/s': Math.round(rate * 10) / 10,
      detail: `${count} jobs, input 256×256 PNG`,
    });
    await Promise.all(workers.map((w) => w.stop()));
    catalogClient.close();
    mediaClient.close();
  }

  // ---------------------------------------------------------------- graphile-worker
  // Measured the way graphile-worker's own perfTest does: its CLI with `--once` (run until the
  // queue is empty, then exit) in a process of its own, minus the start-up/shut-down time of an
  // empty run; latency from a held connection adding one job at a time to a concurrency-1 worker.
  if (only.has('graphile')) {
    const graphileDb = await createTestDatabase();
    const taskDir = mkdtempSync(path.join(tmpdir(), 'graphile-perf-'));
    try {
      mkdirSync(path.join(taskDir, 'tasks'));
      writeFileSync(path.join(taskDir, 'tasks', 'noop.js'), 'module.exports = async () => {};\n');
      const cli = path.resolve('node_modules/graphile-worker/dist/cli.js');
      // Not execFileSync: this process samples the database's backends while the CLI runs.
      const once = async () => {
        const startedAt = performance.now();
        await execFileAsync(process.execPath, [cli, '--once', '-j', '24', '-m', '25', '-c', graphileDb.url], {
          cwd: taskDir,
          maxBuffer: 64 * 1024 * 1024,
          env: { ...process.env, NO_LOG_SUCCESS: '1' },
        });
        return performance.now() - startedAt;
      };
      execFileSync(process.execPath, [cli, '--schema-only', '-c', graphileDb.url], { cwd: taskDir, stdio: 'ignore' });
      // Its CPU: the CLI process (a child this process waits for) and Postgres; an empty run's
      // cost (start-up, shut-down) is subtracted like its time.
      const graphileBackends = databaseBackendsCpu(graphileDb.name);
      const graphileMeter = () => new CpuMeter({ 'graphile-worker': reapedChildrenCpuMs, postgres: () => graphileBackends.read() });
      const emptyMeter = graphileMeter();
      const startup = await once();
      const emptySpent = emptyMeter.spent();
      const admin = new pg.Client({ connectionString: graphileDb.url });
      await admin.connect();
      await admin.query(`SELECT graphile_worker.add_job('noop', json_build_object('i', i)) FROM generate_series(1, $1) i`, [GRAPHILE_JOBS]);
      await admin.query('ANALYZE');
      const drainMeter = graphileMeter();
      const duration = await once();
      const drainSpent = drainMeter.spent();
      recordCpu(
        'graphile-worker drain (CLI --once, empty run subtracted)',
        'graphile',
        Object.fromEntries(Object.entries(drainSpent).map(([part, cpuMs]) => [part, Math.max(0, cpuMs - emptySpent[part]!)])),
        GRAPHILE_JOBS,
      );
      const rate = GRAPHILE_JOBS / ((duration - startup) / 1000);
      results.push({
        system: 'graphile-worker',
        scenario: `${GRAPHILE_JOBS} no-op jobs queued, then drained (1 process, concurrency 24)`,
        'jobs/s': Math.round(rate),
        detail: `CLI --once, start-up ${Math.round(startup)} ms subtracted`,
      });

      const pool = new pg.Pool({ connectionString: graphileDb.url });
      pool.on('error', () => {});
      const started = new Map<number, [number, number]>();
      const latencies: number[] = [];
      const waiting = new Map<number, () => void>();
      const worker = await run({
        pgPool: pool,
        concurrency: 1,
        noHandleSignals: true,
        logger: new Logger(() => () => {}),
        taskList: {
          latency: async (payload: unknown) => {
            const { id } = payload as { id: number };
            const [s, ns] = process.hrtime(started.get(id));
            latencies.push(s * 1e3 + ns / 1e6);
            waiting.get(id)?.();
          },
        },
      });
      const client = await pool.connect();
      for (let id = -20; id < LATENCY_SAMPLES; id += 1) {
        const done = new Promise<void>((resolve) => waiting.set(id, resolve));
        started.set(id, process.hrtime());
        await client.query(`SELECT graphile_worker.add_job('latency', json_build_object('id', $1::int))`, [id]);
        await done;
      }
      client.release();
      latencies.splice(0, 20); // warm-up
      results.push({
        system: 'graphile-worker',
        scenario: `no-op one at a time (${LATENCY_SAMPLES} jobs)`,
        'jobs/s': '-',
        detail: `add→start p50 ${ms(percentile(latencies, 50))} / p99 ${ms(percentile(latencies, 99))} ms`,
      });
      ours.graphileRate = rate;
      ours.graphileP50 = percentile(latencies, 50);
      ours.graphileP99 = percentile(latencies, 99);
      await worker.stop();
      await pool.end();
      await admin.end();
    } finally {
      rmSync(taskDir, { recursive: true, force: true });
      await graphileDb.drop();
    }
  }

  // ---------------------------------------------------------------- ours: CreateJob image.stylize
  // Last: the jobs it creates are left queued (no worker runs after it).
  if (only.has('create')) {
    const clients = {
      jobs: jobsClient,
      catalog: await testClient(catalogV1.CatalogServiceClient, catalog.address, 'gateway'),
      media: await testClient(mediaV1.MediaServiceClient, media.address, 'gateway'),
    };
    const inputs = await stylizeUsers(clients, 'create', STYLIZE_USERS);
    const created = await stylizeCreates(clients, inputs, { concurrency: CREATORS_STYLIZE, durationMs: 8_000, keyPrefix: 'create' });
    ours.stylizeRate = created.opsPerSecond;
    ours.stylizeP99 = percentile(created.latenciesMs, 99);
    results.push({
      system: 'atelier',
      scenario: `CreateJob image.stylize (catalog + media checks, quota), ${CREATORS_STYLIZE} callers, ${STYLIZE_USERS} users`,
      'jobs/s': Math.round(created.opsPerSecond),
      detail: `p50 ${ms(percentile(created.latenciesMs, 50))} / p99 ${ms(ours.stylizeP99)} ms; ${created.errors} errors`,
    });
  }

  printTable('pipeline: atelier system.canary vs graphile-worker no-op jobs (same Postgres, 2-core machine)', results);
  printGoals();
  printCpu();
} catch (error) {
  // A service that died mid-run is the likeliest cause: its last words, not just the caller's error.
  for (const service of processes) {
    if (service.child.exitCode === null && service.child.signalCode === null) continue;
    console.error(`${service.name} exited (${service.child.exitCode ?? service.child.signalCode}):\n${service.output().slice(-4000)}`);
  }
  throw error;
} finally {
  jobsClient.close();
  clearInterval(analyzing);
  await analyzer.end();
  await db.end();
  await Promise.all(processes.map((p) => p.stop()));
  const nats = await connectNats({ servers: testNatsUrl(), name: 'bench-cleanup' });
  await deleteJobStreams(await jetstreamManager(nats), jobsTopology(prefix));
  await nats.close();
  rmSync(s3Directory, { recursive: true, force: true });
  await database.drop();
}

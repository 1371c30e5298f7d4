// Benchmark: flat at scale — CreateJob (with quota counting), ClaimJob and GetJob latency with
// jobs.generation_jobs at 10 000 rows and at 1 000 000, and the retention pruner on the big table.
//
//   npm run bench:scale
//
// One database per size, each with its own jobs process (catalog and media are shared: they keep
// nothing of the jobs). Each database is filled set-based (bench/scale-fill.ts: mostly terminal
// jobs across 10 000 users over 60 days, 3–4 events each, their outbox rows published; a fixed
// in-flight set, since quotas bound it by users, not by history) and VACUUM ANALYZEd, as
// autovacuum would have done over those weeks. Then each operation is measured one call at a
// time, alternating between the sizes call by call, so a busy machine slows both alike:
//   - GetJob of a user's own job: terminal, and queued (its queue position is counted),
//   - CreateJob image.stylize for users with that history (catalog and media checks, quota counts),
//   - ClaimJob of a due queued job, as the worker identity;
// beside it the jobs process's CPU per call and its Postgres backends' CPU per call (from /proc,
// in 10 ms ticks: over 500 calls of 0.2 ms a tick is a tenth of the figure),
// and EXPLAIN (ANALYZE, BUFFERS) of the service's own statements (bench/scale-explain.ts). It ends
// with the goal table (largest / smallest ≤ 1.2), the plans of statements whose cost grew, and
// the retention pruner on the largest database, with creates and claims running on both sizes.
//
// Environment: SCALE_SIZES (10000,1000000), SCALE_USERS (10000), SCALE_DAYS (60), SCALE_QUEUED
// (1000), SCALE_RUNNING (200), SCALE_SAMPLES (500 per operation and size), SCALE_PRUNE_SECONDS
// (20 per table; 0 skips it), SCALE_EXPLAIN=1 prints every plan at every size.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { catalogV1, commonV1, jobsExecutionV1, jobsV1, mediaV1 } from '@atelier/contracts';
import type { PromiseClient } from '@atelier/grpc';
import { connectNats, deleteJobStreams, jetstreamManager, jobsTopology } from '@atelier/nats';
import { UserRefKey } from '@atelier/outbox';
import {
  createTestDatabase,
  natsTestPrefix,
  startGrpcServiceProcess,
  testClient,
  testNatsUrl,
  testProductEventsKey,
  type ServiceProcess,
  type TestDatabase,
  testPng,
} from '@atelier/testing';
import { forEachConcurrently, ms, percentile, printTable } from './bench-kit.js';
import { processCpuMs } from './process-cpu.js';
import { insertDeadOutboxRows, insertTerminalJobs, scaleUser, topUpInFlight, type FillShape } from './scale-fill.js';
import { explainStatements, type ExplainedStatement } from './scale-explain.js';
// The service's own statement functions, so the plans shown are those of the code that runs.
import { selectOwnJobView } from '../services/jobs/src/db/job-view-sql.js';
import { claim } from '../services/jobs/src/db/transitions/claim-sql.js';
import { withinQuotaStatements, type NewJob } from '../services/jobs/src/db/transitions/create-sql.js';
import { claimDueOutboxRows, redispatchStaleJobs } from '../services/jobs/src/db/outbox-sql.js';
import { readQueueStats } from '../services/jobs/src/db/queue-stats-sql.js';
import type { OutboxSubjects } from '../services/jobs/src/db/job-row.js';
import { productEventSubjects } from '../services/jobs/src/db/outbox-payload-sql.js';

const env = (name: string, fallback: string) => process.env[name] ?? fallback;
const SIZES = env('SCALE_SIZES', '10000,1000000').split(',').map(Number);
const USERS = Number(env('SCALE_USERS', '10000'));
const DAYS = Number(env('SCALE_DAYS', '60'));
const QUEUED = Number(env('SCALE_QUEUED', '1000'));
const RUNNING = Number(env('SCALE_RUNNING', '200'));
const SAMPLES = Number(env('SCALE_SAMPLES', '500'));
const PRUNE_SECONDS = Number(env('SCALE_PRUNE_SECONDS', '20'));
const FILL_CHUNK = 100_000;
/** The CreateJob callers: users of the filled history (the same in every database). */
const CALLERS = Array.from({ length: 50 }, (_, i) => scaleUser(i));
const GOAL = 1.2;
/** The filled queued jobs have no dispatch message: the sweep, here, waits this long for one. */
const STALE_AFTER_MS = 6 * 3600_000;
const label = (size: number) => (size >= 1_000_000 ? `${size / 1_000_000} M` : size >= 1000 ? `${size / 1000} k` : String(size));

const s3Directory = mkdtempSync(path.join(tmpdir(), 'atelier-bench-s3-'));
const peersDatabase = await createTestDatabase();
const [catalog, media] = await Promise.all([
  startGrpcServiceProcess('catalog', { DATABASE_URL: peersDatabase.url }),
  startGrpcServiceProcess('media', { DATABASE_URL: peersDatabase.url, S3_EMBEDDED_PORT: '0', S3_EMBEDDED_DIR: s3Directory }),
]);
const catalogClient = await testClient(catalogV1.CatalogServiceClient, catalog.address, 'gateway');
const mediaClient = await testClient(mediaV1.MediaServiceClient, media.address, 'gateway');
const nats = await connectNats({ servers: testNatsUrl(), name: 'bench-scale' });
const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];

/** One size: its database, its jobs process and the connections the bench uses. */
interface Target {
  size: number;
  database: TestDatabase;
  prefix: string;
  subjects: OutboxSubjects;
  shape: FillShape;
  jobs: ServiceProcess;
  api: { jobs: PromiseClient<jobsV1.JobsServiceClient>; execution: PromiseClient<jobsExecutionV1.JobExecutionServiceClient> };
  db: pg.Client;
  explainDb: pg.Client;
}

// The filled queued jobs have no dispatch message in JetStream: the sweep waits six hours before
// it looks at them. Retention's first run is an hour away, so the measurements see no pruning;
// the prune phase restarts the largest size's jobs with it on.
const jobsEnv = (target: Pick<Target, 'database' | 'prefix'>, extra: Record<string, string> = {}) => ({
  DATABASE_URL: target.database.url,
  NATS_STREAM_PREFIX: target.prefix,
  CATALOG_ADDR: catalog.address,
  MEDIA_ADDR: media.address,
  QUOTA_DAILY_LIMIT: '1000000',
  QUOTA_MONTHLY_LIMIT: '1000000',
  QUOTA_MAX_IN_FLIGHT: '10000',
  DISPATCH_STALE_AFTER_MS: String(STALE_AFTER_MS),
  OUTBOX_RETENTION_MS: String(2 * 24 * 3600_000),
  RETENTION_INTERVAL_MS: '3600000',
  LOG_LEVEL: 'warn',
  ...extra,
});

async function connectApi(address: string): Promise<Target['api']> {
  return {
    jobs: await testClient(jobsV1.JobsServiceClient, address, 'gateway', { defaultDeadlineMs: 30_000 }),
    execution: await testClient(jobsExecutionV1.JobExecutionServiceClient, address, 'worker', { defaultDeadlineMs: 30_000 }),
  };
}

async function startTarget(size: number): Promise<Target> {
  const database = await createTestDatabase();
  const prefix = natsTestPrefix();
  const topology = jobsTopology(prefix);
  const subjects: OutboxSubjects = {
    dispatchInteractive: topology.dispatchSubject('interactive'),
    dispatchBackground: topology.dispatchSubject('background'),
    eventPrefix: topology.eventSubject(''),
    providerCancel: topology.controlSubject('provider-cancel'),
    accountDeleted: topology.accountDeletedSubject,
    productEvents: productEventSubjects(topology.productEventSubject(''), new UserRefKey(testProductEventsKey())),
  };
  const jobs = await startGrpcServiceProcess('jobs', jobsEnv({ database, prefix }), profile);
  const db = new pg.Client({ connectionString: database.url });
  const explainDb = new pg.Client({ connectionString: database.url });
  await Promise.all([db.connect(), explainDb.connect()]);
  return {
    size,
    database,
    prefix,
    subjects,
    shape: {
      users: USERS,
      days: DAYS,
      dispatchSubject: { interactive: subjects.dispatchInteractive, background: subjects.dispatchBackground },
      eventPrefix: subjects.eventPrefix,
    },
    jobs,
    api: await connectApi(jobs.address),
    db,
    explainDb,
  };
}

async function stopTarget(target: Target): Promise<void> {
  target.api.jobs.close();
  target.api.execution.close();
  await target.jobs.stop();
  await Promise.all([target.db.end(), target.explainDb.end()]);
  await deleteJobStreams(await jetstreamManager(nats), jobsTopology(target.prefix)).catch(() => undefined);
  await target.database.drop();
}

// ---------------------------------------------------------------- filling
async function fill(target: Target): Promise<number> {
  const startedAt = performance.now();
  const { db, size, shape } = target;
  await db.query('SET synchronous_commit = off');
  for (let from = 0; from < size; from += FILL_CHUNK) {
    const to = Math.min(size, from + FILL_CHUNK);
    await insertTerminalJobs(db, shape, { from, to, stepFrom: 0, stepTo: size });
    if (size > FILL_CHUNK) process.stdout.write(`\r  ${label(size)}: filled ${to.toLocaleString('en')} jobs`);
  }
  await topUpInFlight(db, shape, { queued: QUEUED, running: RUNNING, firstN: 100_000_000 });
  await insertDeadOutboxRows(db, shape, 10, 'fill');
  await db.query('SET synchronous_commit = on');
  // Autovacuum would have analysed and vacuumed a table that grew over weeks (it is off on this
  // machine): without it the planner knows nothing of the new rows, and no page is all-visible.
  await db.query('VACUUM (ANALYZE) jobs.generation_jobs, jobs.job_events, jobs.outbox');
  if (size > FILL_CHUNK) process.stdout.write('\n');
  return performance.now() - startedAt;
}

async function tableSizes(target: Target): Promise<Record<string, string | number>> {
  const { rows } = await target.db.query<Record<string, string>>(
    `SELECT (SELECT count(*) FROM jobs.generation_jobs) AS jobs, (SELECT count(*) FROM jobs.job_events) AS events,
            (SELECT count(*) FROM jobs.outbox) AS outbox, (SELECT count(*) FROM jobs.outbox WHERE status = 'published') AS published,
            (SELECT count(*) FROM jobs.generation_jobs WHERE status = 'queued') AS queued,
            (SELECT count(*) FROM jobs.generation_jobs WHERE status = 'running') AS running,
            (SELECT sum(pg_total_relation_size(c.oid)) / 1048576 FROM pg_class c
              WHERE c.relnamespace = 'jobs'::regnamespace AND c.relkind = 'r')::int AS mb`,
  );
  const row = rows[0]!;
  return {
    size: label(target.size),
    generation_jobs: Number(row.jobs),
    job_events: Number(row.events),
    outbox: Number(row.outbox),
    'outbox published': Number(row.published),
    queued: Number(row.queued),
    running: Number(row.running),
    'schema MB (with indexes)': Number(row.mb),
  };
}

// ---------------------------------------------------------------- measuring
interface Measured {
  p50: number;
  p99: number;
  /** CPU ms per call of the jobs process and of its Postgres backends. */
  jobsCpu: number;
  postgresCpu: number;
  errors: number;
}

/** CPU ms of the Postgres backends serving a target's jobs process (its pool is long-lived). */
async function backendPids(target: Target): Promise<number[]> {
  const { rows } = await target.db.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE 'jobs%'`,
  );
  return rows.map((row) => row.pid);
}

/**
 * `count` calls per target, one at a time, alternating between the targets call by call (after
 * a few unmeasured ones each), with the CPU they cost.
 */
async function alternating(targets: Target[], count: number, call: (target: Target, i: number) => Promise<unknown>) {
  for (const target of targets) for (let i = 0; i < 20; i += 1) await call(target, count + i).catch(() => undefined);
  const pids = await Promise.all(targets.map(backendPids));
  const cpu = (target: Target, t: number) => ({
    jobs: processCpuMs(target.jobs.child.pid),
    postgres: pids[t]!.reduce((sum, pid) => sum + processCpuMs(pid), 0),
  });
  const before = targets.map(cpu);
  const latencies = targets.map((): number[] => []);
  const errors = targets.map(() => 0);
  for (let i = 0; i < count; i += 1) {
    for (const [t, target] of targets.entries()) {
      const startedAt = performance.now();
      try {
        await call(target, i);
        latencies[t]!.push(performance.now() - startedAt);
      } catch (error) {
        if (errors[t]!++ === 0) console.error(`  ${label(target.size)}: first error:`, error);
      }
    }
  }
  return targets.map((target, t): Measured => {
    const after = cpu(target, t);
    return {
      p50: percentile(latencies[t]!, 50),
      p99: percentile(latencies[t]!, 99),
      jobsCpu: (after.jobs - before[t]!.jobs) / count,
      postgresCpu: (after.postgres - before[t]!.postgres) / count,
      errors: errors[t]!,
    };
  });
}

const createRequest = (user: string, inputAssetId: string, key: string) =>
  jobsV1.CreateJobRequest.fromPartial({
    userId: user,
    idempotencyKey: key,
    jobType: 'image.stylize',
    modelId: model.id,
    styleId: style.id,
    inputAssetId,
    prompt: 'a cat in a garden',
  });

async function sampleJobs(target: Target, where: string, count: number): Promise<{ id: string; user_id: string }[]> {
  const { rows } = await target.db.query<{ id: string; user_id: string }>(
    `SELECT id, user_id FROM jobs.generation_jobs WHERE ${where} ORDER BY random() LIMIT $1`,
    [count],
  );
  return rows;
}

const TERMINAL = `status IN ('succeeded', 'failed', 'cancelled')`;
const QUEUED_FILLED = `status = 'queued' AND next_attempt_at <= now() AND idempotency_key LIKE 'live-%'`;

/** The service's statements on a target, explained as its code issues them. */
async function explainAll(target: Target, inputs: Map<string, string>): Promise<Map<string, ExplainedStatement>> {
  const [terminal] = await sampleJobs(target, TERMINAL, 1);
  // The last job of the interactive queue in dispatch order: its position counts the whole queue.
  const { rows: lastQueued } = await target.db.query<{ id: string; user_id: string }>(
    `SELECT id, user_id FROM jobs.generation_jobs WHERE status = 'queued' AND queue = 'interactive'
      ORDER BY next_attempt_at DESC, created_at DESC, id DESC LIMIT 1`,
  );
  const queued = lastQueued[0];
  const [claimable] = await sampleJobs(target, QUEUED_FILLED, 1);
  const caller = CALLERS[0]!;
  const newJob: NewJob = {
    id: '01900000-0000-7000-8000-0000000e0001',
    userId: caller,
    petId: null,
    jobType: 'image.stylize',
    mediaKind: 'image',
    queue: 'interactive',
    modelId: model.id,
    styleId: style.id,
    inputAssetId: inputs.get(caller)!,
    expectsOutput: true,
    prompt: 'explained',
    negativePrompt: '',
    width: null,
    height: null,
    parameters: {},
    providerCode: 'sim',
    providerModel: 'stylizer',
    modelVersion: '1',
    styleCode: 'watercolor',
    maxAttempts: 3,
    idempotencyKey: 'explain-create',
    requestHash: Buffer.alloc(32, 7),
    retryOfJobId: null,
    traceContext: null,
    startWithinSeconds: null,
    effectiveParameters: { strength: 0.8 },
    effectivePrompt: 'explained, a gentle watercolor painting',
  };
  const quota = { jobTypes: ['image.stylize', 'image.upscale'], dailyLimit: 1_000_000, monthlyLimit: 1_000_000, maxInFlight: 10_000 };
  const { explainDb: client, subjects } = target;
  const named = new Map<string, ExplainedStatement>();
  const keep = (name: string, plans: ExplainedStatement[], index = plans.length - 1) => named.set(name, plans[index]!);
  keep('GetJob view, terminal job', await explainStatements(client, (q) => selectOwnJobView(q, terminal!.id, terminal!.user_id)));
  keep('GetJob view, queued job', await explainStatements(client, (q) => selectOwnJobView(q, queued!.id, queued!.user_id)));
  keep(
    'CreateJob insert with quota counts',
    await explainStatements(client, async (q) => {
      // Its transaction's statements one after the other, inside the explaining one (rolled back).
      for (const statement of withinQuotaStatements([newJob], ['user:x'], quota, subjects).statements) await q.query(statement);
    }),
  );
  keep('ClaimJob', await explainStatements(client, (q) => claim(q, [{ jobId: claimable!.id, workerId: 'explain' }], 60_000)));
  keep('stale-dispatch sweep', await explainStatements(client, (q) => redispatchStaleJobs(q, STALE_AFTER_MS, 500, subjects)));
  keep('outbox relay claim', await explainStatements(client, (q) => claimDueOutboxRows(q, 'explain', 200)));
  const stats = await explainStatements(client, (q) => readQueueStats(q));
  keep('metrics: queue depth', stats, 0);
  keep('metrics: outbox backlog', stats, 1);
  return named;
}

// ---------------------------------------------------------------- retention on the big table
async function prunedSoFar(target: Target): Promise<Record<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${target.jobs.metricsPort}/metrics`)).text();
  const counts: Record<string, number> = {};
  for (const match of text.matchAll(/^atelier_jobs_retention_pruned_total\{[^}]*table="([^"]+)"[^}]*\} (\d+)/gm)) {
    counts[match[1]!] = Number(match[2]);
  }
  return counts;
}

/**
 * The pruner on the largest size, one table at a time (a run does the outbox first, and its
 * backlog alone outlasts the window): the jobs process restarted with that table's retention on,
 * creates and claims alternating between the sizes meanwhile.
 */
async function measurePruning(targets: Target[], inputs: Map<string, string>): Promise<void> {
  const large = targets.at(-1)!;
  const phases: { table: string; env: Record<string, string> }[] = [
    { table: 'outbox', env: { OUTBOX_RETENTION_MS: String(24 * 3600_000), JOB_EVENTS_RETENTION_DAYS: '0' } },
    { table: 'job_events', env: { OUTBOX_RETENTION_MS: String(365 * 24 * 3600_000), JOB_EVENTS_RETENTION_DAYS: '30' } },
  ];
  const claimable = await Promise.all(targets.map((target) => sampleJobs(target, QUEUED_FILLED, 100_000)));
  let i = 0;
  const p = (values: number[]) => `${ms(percentile(values, 50))} / ${ms(percentile(values, 99))}`;
  for (const phase of phases) {
    console.log(`\n== the retention pruner on ${label(large.size)}: ${phase.table} (${JSON.stringify(phase.env)})`);
    large.api.jobs.close();
    large.api.execution.close();
    await large.jobs.stop();
    large.jobs = await startGrpcServiceProcess('jobs', jobsEnv(large, { ...phase.env, RETENTION_INTERVAL_MS: '1000' }), profile);
    large.api = await connectApi(large.jobs.address);
    const before = await prunedSoFar(large);
    const startedAt = performance.now();
    const latencies = targets.map(() => ({ create: [] as number[], claim: [] as number[] }));
    while (performance.now() - startedAt < PRUNE_SECONDS * 1000) {
      for (const [t, target] of targets.entries()) {
        const user = CALLERS[i % CALLERS.length]!;
        let at = performance.now();
        await target.api.jobs.createJob(createRequest(user, inputs.get(user)!, `bench-prune-${i}`));
        latencies[t]!.create.push(performance.now() - at);
        const job = claimable[t]![i % claimable[t]!.length];
        if (!job) continue;
        at = performance.now();
        await target.api.execution.claimJob({ jobId: job.id, workerId: 'bench-prune-worker' });
        latencies[t]!.claim.push(performance.now() - at);
      }
      i += 1;
    }
    const seconds = (performance.now() - startedAt) / 1000;
    const pruned = ((await prunedSoFar(large))[phase.table] ?? 0) - (before[phase.table] ?? 0);
    console.log(`  ${phase.table}: ${pruned.toLocaleString('en')} rows in ${seconds.toFixed(0)} s, ${Math.round(pruned / seconds)} rows/s`);
    printTable(
      `meanwhile, one call at a time on each size (p50 / p99 ms; ${label(large.size)} is pruning ${phase.table})`,
      targets.map((target, t) => ({
        size: label(target.size),
        'CreateJob image.stylize': p(latencies[t]!.create),
        ClaimJob: p(latencies[t]!.claim),
      })),
    );
  }
}

// ---------------------------------------------------------------- the run
const { models, styles } = await catalogClient.getCatalog({ mediaKind: commonV1.MediaKind.IMAGE });
const model = models.find((m) => m.jobType === 'image.stylize')!;
const style = styles[0]!;
const targets: Target[] = [];
try {
  for (const size of SIZES) targets.push(await startTarget(size));
  for (const target of targets) {
    const fillMs = await fill(target);
    console.log(`  ${label(target.size)} filled and vacuumed in ${(fillMs / 1000).toFixed(1)} s`);
  }
  printTable('the databases', await Promise.all(targets.map(tableSizes)));

  // A ready ai_input asset per caller, in media (shared by every size).
  const png = await testPng(128, 128);
  const inputs = new Map<string, string>();
  await forEachConcurrently(CALLERS.length, 8, async (i) => {
    const user = CALLERS[i]!;
    const upload = await mediaClient.createUpload({
      ownerUserId: user,
      purpose: mediaV1.AssetPurpose.AI_INPUT,
      contentType: 'image/png',
      sizeBytes: png.length,
    });
    await fetch(upload.uploadUrl, { method: 'PUT', headers: upload.uploadHeaders, body: png });
    await mediaClient.completeUpload({ assetId: upload.asset!.id, ownerUserId: user });
    inputs.set(user, upload.asset!.id);
  });

  const ops = new Map<string, Measured[]>();
  const terminal = await Promise.all(targets.map((target) => sampleJobs(target, TERMINAL, SAMPLES)));
  ops.set(
    'GetJob, terminal job',
    await alternating(targets, SAMPLES, (target, i) => {
      const job = terminal[targets.indexOf(target)]![i % SAMPLES]!;
      return target.api.jobs.getJob({ jobId: job.id, userId: job.user_id });
    }),
  );
  const queued = await Promise.all(targets.map((target) => sampleJobs(target, `status = 'queued'`, SAMPLES)));
  ops.set(
    'GetJob, queued job (queue position)',
    await alternating(targets, SAMPLES, (target, i) => {
      const jobs = queued[targets.indexOf(target)]!;
      const job = jobs[i % jobs.length]!;
      return target.api.jobs.getJob({ jobId: job.id, userId: job.user_id });
    }),
  );
  ops.set(
    'CreateJob image.stylize (quota counted)',
    await alternating(targets, SAMPLES, (target, i) => {
      const user = CALLERS[i % CALLERS.length]!;
      return target.api.jobs.createJob(createRequest(user, inputs.get(user)!, `bench-${i}`));
    }),
  );
  const statements = await Promise.all(targets.map((target) => explainAll(target, inputs)));
  const claimable = await Promise.all(targets.map((target) => sampleJobs(target, QUEUED_FILLED, SAMPLES + 20)));
  ops.set(
    'ClaimJob',
    await alternating(targets, SAMPLES, async (target, i) => {
      const job = claimable[targets.indexOf(target)]![i]!;
      const { outcome } = await target.api.execution.claimJob({ jobId: job.id, workerId: `bench-worker-${i}` });
      if (outcome !== jobsExecutionV1.ClaimOutcome.CLAIMED) throw new Error(`claim answered ${outcome}`);
    }),
  );

  for (const [t, target] of targets.entries()) {
    printTable(
      `${label(target.size)} jobs: one call at a time, ${SAMPLES} per operation`,
      [...ops].map(([operation, measured]) => ({
        operation,
        'p50 ms': ms(measured[t]!.p50),
        'p99 ms': ms(measured[t]!.p99),
        'jobs CPU ms/call': ms(measured[t]!.jobsCpu),
        'Postgres CPU ms/call': ms(measured[t]!.postgresCpu),
        errors: measured[t]!.errors,
      })),
    );
  }
  printTable(
    'statements, EXPLAIN (ANALYZE, BUFFERS): execution ms / shared buffers',
    [...statements[0]!.keys()].map((statement) => ({
      statement,
      ...Object.fromEntries(
        targets.map((target, t) => {
          const s = statements[t]!.get(statement)!;
          return [label(target.size), `${ms(s.executionMs)} / ${s.buffers}`];
        }),
      ),
    })),
  );

  if (targets.length > 1) {
    const [small, large] = [targets[0]!, targets.at(-1)!];
    const [a, b] = [0, targets.length - 1];
    console.log(`\ngoals (ratio = ${label(large.size)} / ${label(small.size)}; latencies one call at a time, sizes alternating):`);
    console.table(
      [...ops].flatMap(([operation, measured]) =>
        (['p50', 'p99', 'jobsCpu', 'postgresCpu'] as const).map((key) => {
          const ratio = measured[b]![key] / measured[a]![key];
          const what = { p50: 'p50 (ms)', p99: 'p99 (ms)', jobsCpu: 'jobs CPU (ms/call)', postgresCpu: 'Postgres CPU (ms/call)' }[key];
          return {
            measure: `${operation}, ${what}`,
            [label(small.size)]: ms(measured[a]![key]),
            [label(large.size)]: ms(measured[b]![key]),
            ratio: ms(ratio),
            goal: `≤ ${GOAL}`,
            met: ratio <= GOAL,
          };
        }),
      ),
    );
    const grown = [...statements[b]!].filter(([statement, s]) => s.buffers > Math.max(20, statements[a]!.get(statement)!.buffers * GOAL));
    for (const [statement, s] of grown) {
      const before = statements[a]!.get(statement)!.buffers;
      console.log(`\n-- ${statement} at ${label(large.size)}: ${s.buffers} shared buffers (${before} at ${label(small.size)})\n${s.plan}`);
    }
    if (grown.length === 0) console.log(`\nno statement touches more than ${GOAL}× the shared buffers at ${label(large.size)}`);
  }
  if (process.env.SCALE_EXPLAIN === '1') {
    for (const [t, target] of targets.entries()) {
      for (const [statement, s] of statements[t]!) console.log(`\n-- ${statement} at ${label(target.size)}\n${s.plan}`);
    }
  }
  if (PRUNE_SECONDS > 0) await measurePruning(targets, inputs);
} finally {
  catalogClient.close();
  mediaClient.close();
  for (const target of targets) await stopTarget(target);
  await Promise.all([catalog.stop(), media.stop()]);
  await nats.close();
  rmSync(s3Directory, { recursive: true, force: true });
  await peersDatabase.drop();
}

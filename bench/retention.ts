// Benchmark: retention of what users wrote (docs/retention.md) does not slow creates or claims.
//
//   npm run bench:retention
//
// One database seeded with RETENTION_JOBS (1 000 000) ended image.stylize jobs, 40 to ~100 days
// old — every one past its 30 days, each with a prompt, a negative prompt, text among its
// parameters and an input image of its own — in one INSERT … SELECT generate_series per 100 000,
// then VACUUM ANALYZEd. Then CreateJob + ClaimJob (+ CompleteJob, so the in-flight set stays
// small) of system.canary offered at RETENTION_RATE per second (100), RETENTION_SECONDS (30) each phase:
//   1. the pruner idle (its first run an hour away);
//   2. the pruner redacting the backlog (jobs restarted with RETENTION_INTERVAL_MS=1000);
//   3. the pruner deleting the backlog's input images, once the redaction is through: media is
//      asked about every image; the seeded ones are not in media, so each answer is GONE and the
//      jobs record input_removed_at — the jobs side of the step in full, without media's S3 deletes.
// It prints the jobs done per second and p50 / p95 / p99 of each call per phase, and the rows per
// second retention did meanwhile. Batches and pauses are the service's defaults (RETENTION_BATCH_SIZE 1000,
// RETENTION_BATCH_PAUSE_MS 100).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { jobsExecutionV1, jobsV1 } from '@atelier/contracts';
import type { PromiseClient } from '@atelier/grpc';
import { connectNats, deleteJobStreams, jetstreamManager, jobsTopology } from '@atelier/nats';
import {
  createTestDatabase,
  natsTestPrefix,
  startGrpcServiceProcess,
  testClient,
  testNatsUrl,
  type ServiceProcess,
} from '@atelier/testing';
import { ms, percentile, printTable } from './bench-kit.js';

const env = (name: string, fallback: string) => Number(process.env[name] ?? fallback);
const JOBS = env('RETENTION_JOBS', '1000000');
const SECONDS = env('RETENTION_SECONDS', '30');
const RATE = env('RETENTION_RATE', '100');
const FILL_CHUNK = 100_000;

const s3Directory = mkdtempSync(path.join(tmpdir(), 'atelier-bench-s3-'));
const peersDatabase = await createTestDatabase();
const database = await createTestDatabase();
const prefix = natsTestPrefix();
const [catalog, media] = await Promise.all([
  startGrpcServiceProcess('catalog', { DATABASE_URL: peersDatabase.url }),
  startGrpcServiceProcess('media', { DATABASE_URL: peersDatabase.url, S3_EMBEDDED_PORT: '0', S3_EMBEDDED_DIR: s3Directory }),
]);
const nats = await connectNats({ servers: testNatsUrl(), name: 'bench-retention' });
const db = new pg.Client({ connectionString: database.url });

const jobsEnv = (retentionIntervalMs: number) => ({
  DATABASE_URL: database.url,
  NATS_STREAM_PREFIX: prefix,
  CATALOG_ADDR: catalog.address,
  MEDIA_ADDR: media.address,
  JOB_EVENTS_RETENTION_DAYS: '0',
  RETENTION_INTERVAL_MS: String(retentionIntervalMs),
  LOG_LEVEL: 'warn',
});

interface Jobs {
  process: ServiceProcess;
  api: PromiseClient<jobsV1.JobsServiceClient>;
  execution: PromiseClient<jobsExecutionV1.JobExecutionServiceClient>;
}

async function startJobs(retentionIntervalMs: number): Promise<Jobs> {
  const process = await startGrpcServiceProcess('jobs', jobsEnv(retentionIntervalMs));
  return {
    process,
    api: await testClient(jobsV1.JobsServiceClient, process.address, 'gateway', { defaultDeadlineMs: 30_000 }),
    execution: await testClient(jobsExecutionV1.JobExecutionServiceClient, process.address, 'worker', { defaultDeadlineMs: 30_000 }),
  };
}

async function stopJobs(jobs: Jobs): Promise<void> {
  jobs.api.close();
  jobs.execution.close();
  await jobs.process.stop();
}

/** Ended image.stylize jobs n ∈ [from, to): every one past its retention, with what a user writes and an input image. */
async function seed(from: number, to: number): Promise<void> {
  await db.query(
    `INSERT INTO jobs.generation_jobs
       (id, user_id, job_type, media_kind, queue, model_id, style_id, input_asset_id, output_asset_id, expects_output,
        prompt, negative_prompt, parameters, effective_parameters, effective_prompt,
        provider_code_snapshot, provider_model_snapshot, model_version_snapshot, style_code_snapshot,
        status, progress, attempt_count, max_attempts, idempotency_key, request_hash,
        next_attempt_at, created_at, updated_at, started_at, completed_at)
     SELECT gen_random_uuid(), 'retention-user-' || (n % 10000), 'image.stylize', 'image', 'interactive',
            '00000000-0000-7000-8000-00000000a001', '00000000-0000-7000-8000-00000000b001', gen_random_uuid(), gen_random_uuid(), true,
            'my cat number ' || n || ' in a garden', 'no dogs', '{"strength": 0.6, "seed": 7, "caption": "garden"}'::jsonb,
            '{"strength": 0.6, "seed": 7, "caption": "garden", "guidance": 7.5}'::jsonb, 'my cat number ' || n || ' in a garden, watercolor',
            'sim', 'stylizer', '1', 'watercolor', 'succeeded', 100, 1, 3, 'retention-fill-' || n, sha256(convert_to(n::text, 'UTF8')),
            c.at, c.at, c.at + interval '12 seconds', c.at + interval '2 seconds', c.at + interval '12 seconds'
       FROM generate_series($1::bigint, $2::bigint - 1) AS n
       CROSS JOIN LATERAL (SELECT now() - interval '40 days' - make_interval(secs => n * 5) AS at) c`,
    [from, to],
  );
}

async function retentionCounters(jobs: Jobs): Promise<{ redacted: number; inputsSettled: number }> {
  const text = await (await fetch(`http://127.0.0.1:${jobs.process.metricsPort}/metrics`)).text();
  const redacted = Number(/^atelier_jobs_retention_pruned_total\{[^}]*table="redacted_jobs"[^}]*\} (\d+)/m.exec(text)?.[1] ?? 0);
  const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM jobs.generation_jobs WHERE input_removed_at IS NOT NULL`);
  return { redacted, inputsSettled: rows[0]!.n };
}

/**
 * Creates, claims and completes canaries at RATE per second for SECONDS (an open loop: a slow call
 * does not slow the offered load, as users do not wait for each other); each call's latency kept
 * apart. A closed loop at full tilt would only measure how much of a 2-core machine the pruner takes.
 */
async function load(jobs: Jobs, phase: string) {
  const creates: number[] = [];
  const claims: number[] = [];
  let errors = 0;
  let firstError: unknown;
  const total = RATE * SECONDS;
  const startedAt = performance.now();
  const calls: Promise<void>[] = [];
  for (let i = 0; i < total; i += 1) {
    const due = startedAt + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    calls.push(
      (async () => {
        let at = performance.now();
        const { job } = await jobs.api.createJob(
          jobsV1.CreateJobRequest.fromPartial({
            userId: `bench-caller-${i % 50}`,
            idempotencyKey: `${phase}-${i}`,
            jobType: 'system.canary',
          }),
        );
        creates.push(performance.now() - at);
        at = performance.now();
        await jobs.execution.claimJob({ jobId: job!.id, workerId: 'bench-retention' });
        claims.push(performance.now() - at);
        await jobs.execution.completeJob({ jobId: job!.id, workerId: 'bench-retention', outputAssetId: '', outputSha256: '' });
      })().catch((error: unknown) => {
        errors += 1;
        firstError ??= error;
      }),
    );
  }
  await Promise.all(calls);
  const achieved = (total - errors) / ((performance.now() - startedAt) / 1000);
  if (errors > 0) console.log(`  ${phase}: ${errors} errors, the first: ${String(firstError)}`);
  const p = (values: number[]) => `${ms(percentile(values, 50))} / ${ms(percentile(values, 95))} / ${ms(percentile(values, 99))}`;
  return { 'jobs/s done': Math.round(achieved), 'CreateJob p50 / p95 / p99 ms': p(creates), 'ClaimJob p50 / p95 / p99 ms': p(claims) };
}

const rows: Record<string, string | number>[] = [];
let jobs: Jobs | undefined;
try {
  jobs = await startJobs(3_600_000); // migrates the schema; the pruner's first run an hour away
  await db.connect();
  await db.query('SET synchronous_commit = off');
  let startedAt = performance.now();
  for (let from = 0; from < JOBS; from += FILL_CHUNK) {
    await seed(from, Math.min(JOBS, from + FILL_CHUNK));
    process.stdout.write(`\r  seeded ${Math.min(JOBS, from + FILL_CHUNK).toLocaleString('en')} ended jobs`);
  }
  await db.query('VACUUM ANALYZE jobs.generation_jobs');
  console.log(`\n  seeded and vacuumed in ${((performance.now() - startedAt) / 1000).toFixed(0)} s`);

  rows.push({ phase: '1. pruner idle', ...(await load(jobs, 'idle')), 'retention rows/s': 0 });

  await stopJobs(jobs);
  jobs = await startJobs(1_000);
  let before = await retentionCounters(jobs);
  startedAt = performance.now();
  const redacting = await load(jobs, 'redacting');
  let seconds = (performance.now() - startedAt) / 1000;
  let after = await retentionCounters(jobs);
  rows.push({ phase: '2. pruner redacting', ...redacting, 'retention rows/s': Math.round((after.redacted - before.redacted) / seconds) });

  process.stdout.write('  waiting for the redaction to finish');
  while ((await retentionCounters(jobs)).redacted < JOBS) await new Promise((resolve) => setTimeout(resolve, 2_000));
  console.log(
    `: all ${JOBS.toLocaleString('en')} redacted ${((performance.now() - startedAt) / 1000).toFixed(0)} s after the pruner started`,
  );

  before = await retentionCounters(jobs);
  startedAt = performance.now();
  const deleting = await load(jobs, 'images');
  seconds = (performance.now() - startedAt) / 1000;
  after = await retentionCounters(jobs);
  rows.push({
    phase: '3. pruner on input images',
    ...deleting,
    'retention rows/s': Math.round((after.inputsSettled - before.inputsSettled) / seconds),
  });

  printTable(
    `${JOBS.toLocaleString('en')} ended jobs due; ${RATE} canaries/s created, claimed and completed, ${SECONDS} s per phase (retention rows/s: jobs redacted, then images settled)`,
    rows,
  );
} finally {
  if (jobs) await stopJobs(jobs);
  await db.end().catch(() => undefined);
  await Promise.all([catalog.stop(), media.stop()]);
  await deleteJobStreams(await jetstreamManager(nats), jobsTopology(prefix)).catch(() => undefined);
  await nats.close();
  await Promise.all([database.drop(), peersDatabase.drop()]);
  rmSync(s3Directory, { recursive: true, force: true });
}

// Benchmark: what the console's overview costs to read — GetOverview's one REPEATABLE READ
// transaction (services/jobs/src/db/overview-sql.ts) on a database holding a busy day.
//
//   npm run bench:overview
//
// One database, filled set-based (bench/scale-fill.ts) with OVERVIEW_JOBS terminal jobs created
// over the last 24 h (3–4 events each), 1 000 queued and 200 running, then VACUUM ANALYZEd as
// autovacuum would have. Each window (1, 3, 12 and 24 h) is read OVERVIEW_SAMPLES times, one read
// at a time, the windows interleaved so a busy machine slows all alike; beside the whole read,
// the time of each of its statements, from the same calls. No jobs process runs: the bench calls
// the service's own statement functions over a pool, as GetOverview does.
//
// Environment: OVERVIEW_JOBS (200000), OVERVIEW_SAMPLES (20), OVERVIEW_EXPLAIN=60,1440 prints the
// plans of the window statements for those windows.
import { createSqlPool } from '@atelier/db';
import { createTestDatabase, natsTestPrefix } from '@atelier/testing';
import { jobsTopology } from '@atelier/nats';
import pg from 'pg';
import { ms, percentile, printTable } from './bench-kit.js';
import { explainStatements } from './scale-explain.js';
import { insertDeadOutboxRows, insertTerminalJobs, topUpInFlight, type FillShape } from './scale-fill.js';
import { createJobsOrm, migrateJobs } from '../services/jobs/src/db/jobs-orm.js';
import {
  selectLatencies,
  selectLiveLeases,
  selectOverviewWindow,
  selectQueueFlows,
  selectThroughput,
  setOverviewTransaction,
} from '../services/jobs/src/db/overview-sql.js';
import { readQueueStats } from '../services/jobs/src/db/queue-stats-sql.js';
import { overviewBuckets } from '../services/jobs/src/domain/overview-window.js';

const JOBS = Number(process.env.OVERVIEW_JOBS ?? 200_000);
const SAMPLES = Number(process.env.OVERVIEW_SAMPLES ?? 20);
const WINDOWS = [60, 180, 720, 1440];
const FILL_CHUNK = 50_000;
const LEASE_TTL_MS = 60_000;

const database = await createTestDatabase();
try {
  const orm = await createJobsOrm(database.url);
  await migrateJobs(orm, database.url);
  await orm.close();

  const topology = jobsTopology(natsTestPrefix());
  const shape: FillShape = {
    users: 10_000,
    days: 1,
    dispatchSubject: { interactive: topology.dispatchSubject('interactive'), background: topology.dispatchSubject('background') },
    eventPrefix: topology.eventSubject(''),
  };
  const db = new pg.Client({ connectionString: database.url });
  await db.connect();
  const fillStarted = performance.now();
  await db.query('SET synchronous_commit = off');
  for (let from = 0; from < JOBS; from += FILL_CHUNK) {
    await insertTerminalJobs(db, shape, { from, to: Math.min(JOBS, from + FILL_CHUNK), stepFrom: 0, stepTo: JOBS });
  }
  await topUpInFlight(db, shape, { queued: 1_000, running: 200, firstN: 100_000_000 });
  await insertDeadOutboxRows(db, shape, 10, 'overview');
  await db.query('VACUUM (ANALYZE) jobs.generation_jobs, jobs.job_events, jobs.outbox');
  const { rows } = await db.query<{ events: string }>(`SELECT count(*) AS events FROM jobs.job_events`);
  if (process.env.OVERVIEW_EXPLAIN) {
    for (const windowMinutes of process.env.OVERVIEW_EXPLAIN.split(',').map(Number)) {
      const buckets = overviewBuckets(windowMinutes);
      const plans = await explainStatements(db, async (q) => {
        const window = await selectOverviewWindow(q, buckets);
        await selectThroughput(q, window.windowStart, buckets.bucketMinutes);
        await selectLatencies(q, window.windowStart, buckets.bucketMinutes);
        await selectQueueFlows(q, window.windowStart, buckets.bucketMinutes);
      });
      for (const plan of plans) console.log(`\n${windowMinutes} min window, ${plan.statement}: ${plan.executionMs} ms\n${plan.plan}`);
    }
  }
  await db.end();
  console.log(
    `filled ${JOBS.toLocaleString('en')} jobs over 24 h, ${Number(rows[0]!.events).toLocaleString('en')} events, in ${ms(performance.now() - fillStarted)} ms`,
  );

  const pool = createSqlPool({ databaseUrl: database.url, applicationName: 'bench-overview' });
  type Step = 'throughput' | 'latencies' | 'queue flows' | 'leases' | 'queue stats' | 'whole read';
  const timings = new Map<number, Map<Step, number[]>>(WINDOWS.map((w) => [w, new Map()]));
  const record = (window: number, step: Step, startedAt: number) => {
    const byStep = timings.get(window)!;
    byStep.set(step, [...(byStep.get(step) ?? []), performance.now() - startedAt]);
  };
  // The statements of readOverview one by one, in its transaction mode, each timed.
  const readTimed = async (windowMinutes: number) => {
    const buckets = overviewBuckets(windowMinutes);
    const client = await pool.connect();
    const readStarted = performance.now();
    try {
      await client.query('BEGIN');
      await setOverviewTransaction(client);
      const window = await selectOverviewWindow(client, buckets);
      let t = performance.now();
      await selectThroughput(client, window.windowStart, buckets.bucketMinutes);
      record(windowMinutes, 'throughput', t);
      t = performance.now();
      await selectLatencies(client, window.windowStart, buckets.bucketMinutes);
      record(windowMinutes, 'latencies', t);
      t = performance.now();
      await selectQueueFlows(client, window.windowStart, buckets.bucketMinutes);
      record(windowMinutes, 'queue flows', t);
      t = performance.now();
      await selectLiveLeases(client, LEASE_TTL_MS);
      record(windowMinutes, 'leases', t);
      t = performance.now();
      await readQueueStats(client);
      record(windowMinutes, 'queue stats', t);
      await client.query('COMMIT');
      record(windowMinutes, 'whole read', readStarted);
    } finally {
      client.release();
    }
  };
  for (const window of WINDOWS) await readTimed(window); // warm-up: plans prepared, pages cached
  for (const byStep of timings.values()) byStep.clear();
  for (let i = 0; i < SAMPLES; i += 1) for (const window of WINDOWS) await readTimed(window);
  await pool.end();

  printTable(
    `GetOverview's read, ${SAMPLES} reads per window (ms, p50 / p99)`,
    WINDOWS.map((window) => {
      const row: Record<string, string> = { window: `${window / 60} h` };
      for (const [step, values] of timings.get(window)!) row[step] = `${ms(percentile(values, 50))} / ${ms(percentile(values, 99))}`;
      return row;
    }),
  );
} finally {
  await database.drop();
}

// graphile-worker as bench/pipeline.ts's peer on Postgres, measured the way its own perfTest
// does: its CLI with `--once` (run until the queue is empty, then exit) in a process of its own,
// minus the start-up/shut-down time and CPU of an empty run; latency from a held connection
// adding one job at a time to a concurrency-1 worker in this process.
//
// The release is the repository's devDependency, or the one installed in BENCH_GRAPHILE_DIR
// (`npm install graphile-worker@<version>` in a directory outside the repository): that
// release's CLI drains and its `run` serves the latency scenario, to set an older release beside
// the current one.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import type * as graphileWorker from 'graphile-worker';
import pg from 'pg';
import { createTestDatabase } from '@atelier/testing';
import { percentile } from '../bench-kit.js';
import { CpuMeter, databaseBackendsCpu, reapedChildrenCpuMs } from '../process-cpu.js';
import type { PeerRun } from './peer-run.js';
import { StartLatencyProbe } from './start-latency.js';

type GraphileWorker = typeof graphileWorker;

const execFileAsync = promisify(execFile);
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The graphile-worker package to run: BENCH_GRAPHILE_DIR's, else the repository's. */
function graphilePackage(): { directory: string; version: string } {
  const base = process.env.BENCH_GRAPHILE_DIR ? path.resolve(process.env.BENCH_GRAPHILE_DIR) : repoRoot;
  const directory = path.join(base, 'node_modules', 'graphile-worker');
  if (!existsSync(path.join(directory, 'package.json'))) {
    throw new Error(`no graphile-worker in ${base}/node_modules: run \`npm install graphile-worker@<version>\` there`);
  }
  const { version } = JSON.parse(readFileSync(path.join(directory, 'package.json'), 'utf8')) as { version: string };
  return { directory, version };
}

/** Its `run` and `Logger`: 0.18 is ESM, 0.17 CommonJS (whose exports an import() puts under `default`). */
async function loadGraphile(directory: string): Promise<GraphileWorker> {
  const loaded = (await import(pathToFileURL(path.join(directory, 'dist', 'index.js')).href)) as GraphileWorker & {
    default?: GraphileWorker;
  };
  return typeof loaded.run === 'function' ? loaded : loaded.default!;
}

export async function measureGraphileWorker(options: {
  jobs: number;
  concurrency: number;
  latencySamples: number;
  warmUp: number;
}): Promise<PeerRun> {
  const { directory, version } = graphilePackage();
  const graphileDb = await createTestDatabase();
  const taskDir = mkdtempSync(path.join(tmpdir(), 'graphile-perf-'));
  const backends = databaseBackendsCpu(graphileDb.name);
  try {
    mkdirSync(path.join(taskDir, 'tasks'));
    writeFileSync(path.join(taskDir, 'tasks', 'noop.js'), 'module.exports = async () => {};\n');
    const cli = path.join(directory, 'dist', 'cli.js');
    // Not execFileSync: this process samples the database's backends while the CLI runs.
    const once = async () => {
      const startedAt = performance.now();
      // A pool of one connection more than jobs at once, as its perfTest has (-j 24 -m 25).
      const pool = String(options.concurrency + 1);
      await execFileAsync(process.execPath, [cli, '--once', '-j', String(options.concurrency), '-m', pool, '-c', graphileDb.url], {
        cwd: taskDir,
        maxBuffer: 64 * 1024 * 1024,
        env: { ...process.env, NO_LOG_SUCCESS: '1' },
      });
      return performance.now() - startedAt;
    };
    execFileSync(process.execPath, [cli, '--schema-only', '-c', graphileDb.url], { cwd: taskDir, stdio: 'ignore' });
    // Its CPU: the CLI process (a child this process waits for) and Postgres; an empty run's
    // cost (start-up, shut-down) is subtracted like its time.
    const meter = () => new CpuMeter({ 'graphile-worker': reapedChildrenCpuMs, postgres: () => backends.read() });
    const emptyMeter = meter();
    const startup = await once();
    const emptySpent = emptyMeter.spent();
    const admin = new pg.Client({ connectionString: graphileDb.url });
    await admin.connect();
    try {
      await admin.query(`SELECT graphile_worker.add_job('noop', json_build_object('i', i)) FROM generate_series(1, $1) i`, [options.jobs]);
      await admin.query('ANALYZE');
    } finally {
      await admin.end();
    }
    const drainMeter = meter();
    const duration = await once();
    const drainSpent = drainMeter.spent();

    const latencies = await measureLatency(await loadGraphile(directory), graphileDb.url, options);
    return {
      system: `graphile-worker ${version}`,
      drain: {
        jobs: options.jobs,
        jobsPerSecond: options.jobs / ((duration - startup) / 1000),
        cpuMs: Object.fromEntries(Object.entries(drainSpent).map(([part, cpuMs]) => [part, Math.max(0, cpuMs - emptySpent[part]!)])),
        scenario: `${options.jobs} no-op jobs queued, then drained (1 process, concurrency ${options.concurrency})`,
        detail: `CLI --once, start-up ${Math.round(startup)} ms subtracted`,
      },
      startLatency: { samples: latencies.length, p50: percentile(latencies, 50), p99: percentile(latencies, 99) },
    };
  } finally {
    backends.stop();
    rmSync(taskDir, { recursive: true, force: true });
    await graphileDb.drop();
  }
}

async function measureLatency(
  graphile: GraphileWorker,
  databaseUrl: string,
  options: { latencySamples: number; warmUp: number },
): Promise<number[]> {
  const pool = new pg.Pool({ connectionString: databaseUrl });
  // Errors of idle connections (only at teardown here) must not crash the bench: graphile-worker
  // 0.18 warns unless the pool and each of its clients have a handler.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  const probe = new StartLatencyProbe();
  const worker = await graphile.run({
    pgPool: pool,
    concurrency: 1,
    noHandleSignals: true,
    logger: new graphile.Logger(() => () => {}),
    taskList: { latency: async (payload: unknown) => probe.started((payload as { id: number }).id) },
  });
  const client = await pool.connect();
  try {
    return await probe.measure(
      (id) => client.query(`SELECT graphile_worker.add_job('latency', json_build_object('id', $1::int))`, [id]),
      options.latencySamples,
      options.warmUp,
    );
  } finally {
    client.release();
    await worker.stop();
    await pool.end();
  }
}

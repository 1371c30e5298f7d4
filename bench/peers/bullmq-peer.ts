// BullMQ as bench/pipeline.ts's peer on Redis: the queue a Node team would pick first. Per run
// a redis-server of its own (bench/peers/redis-server.ts) with an append-only file in the given
// fsync mode, then:
// - drain: N no-op jobs added first (addBulk), then one worker process (concurrency 24) drains
//   them; jobs/s from its first start to its last completion, both timed in that process, and
//   CPU per job of that process and of redis-server, read from /proc from the moment it is ready;
// - latency: add→start of one job at a time to a concurrency-1 worker in this process.
// Default job and worker options otherwise: completed jobs are kept, as our engine keeps its
// finished jobs (graphile-worker deletes them).
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Queue, Worker } from 'bullmq';
import { percentile } from '../bench-kit.js';
import { CpuMeter, processCpuMs, processWithReapedChildrenCpuMs } from '../process-cpu.js';
import type { DrainWorkerCommand, DrainWorkerMessage } from './bullmq-drain-worker.js';
import type { PeerRun } from './peer-run.js';
import { startRedisServer, type AppendFsync } from './redis-server.js';
import { StartLatencyProbe } from './start-latency.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../..');
const { version: bullmqVersion } = createRequire(import.meta.url)('bullmq/package.json') as { version: string };
/** Jobs per addBulk call while queueing the drain's jobs. */
const ADD_BATCH = 1_000;

export async function measureBullmq(options: {
  appendfsync: AppendFsync;
  jobs: number;
  concurrency: number;
  latencySamples: number;
  warmUp: number;
}): Promise<PeerRun> {
  const redis = await startRedisServer(options.appendfsync);
  const connection = { host: '127.0.0.1', port: redis.port };
  try {
    const queue = new Queue('drain', { connection });
    try {
      for (let added = 0; added < options.jobs; added += ADD_BATCH) {
        const count = Math.min(ADD_BATCH, options.jobs - added);
        await queue.addBulk(Array.from({ length: count }, (_, i) => ({ name: 'noop', data: { i: added + i } })));
      }
    } finally {
      await queue.close();
    }
    const drain = await drainInWorkerProcess(redis.port, redis.pid, 'drain', options);
    const latencies = await measureLatency(connection, options);
    return {
      system: `BullMQ ${bullmqVersion} (appendfsync ${options.appendfsync})`,
      drain: {
        jobs: options.jobs,
        jobsPerSecond: options.jobs / (drain.durationMs / 1000),
        cpuMs: drain.cpuMs,
        scenario: `${options.jobs} no-op jobs queued (addBulk), then drained (1 worker process, concurrency ${options.concurrency})`,
        detail: `first start to last completion; Redis ${redis.version}, appendonly, appendfsync ${options.appendfsync}`,
      },
      startLatency: { samples: latencies.length, p50: percentile(latencies, 50), p99: percentile(latencies, 99) },
    };
  } finally {
    await redis.stop();
  }
}

async function drainInWorkerProcess(
  port: number,
  redisPid: number,
  queueName: string,
  options: { jobs: number; concurrency: number },
): Promise<{ durationMs: number; cpuMs: Record<string, number> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(here, 'bullmq-drain-worker.ts')], {
    cwd: repoRoot,
    env: {
      ...process.env,
      BENCH_REDIS_PORT: String(port),
      BENCH_QUEUE: queueName,
      BENCH_JOBS: String(options.jobs),
      BENCH_CONCURRENCY: String(options.concurrency),
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const command = (value: DrainWorkerCommand) => child.send(value);
  try {
    await nextMessage(child, 'ready');
    const meter = new CpuMeter({
      'bullmq worker': () => processCpuMs(child.pid),
      'redis-server': () => processWithReapedChildrenCpuMs(redisPid),
    });
    command('go');
    const drained = await nextMessage(child, 'drained');
    // Read while the worker process still lives: /proc forgets a process's CPU once it is gone.
    const cpuMs = meter.spent();
    command('stop');
    await exitOf(child);
    return { durationMs: drained.durationMs, cpuMs };
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    process.off('exit', killOnExit);
  }
}

function nextMessage<T extends DrainWorkerMessage['type']>(
  child: ChildProcess,
  type: T,
): Promise<Extract<DrainWorkerMessage, { type: T }>> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: DrainWorkerMessage) => {
      if (message.type !== type) return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(message as Extract<DrainWorkerMessage, { type: T }>);
    };
    const onExit = (code: number | null) => {
      child.off('message', onMessage);
      reject(new Error(`the BullMQ drain worker exited (${code}) before saying ${type}`));
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

function exitOf(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

async function measureLatency(
  connection: { host: string; port: number },
  options: { latencySamples: number; warmUp: number },
): Promise<number[]> {
  const probe = new StartLatencyProbe();
  const queue = new Queue('latency', { connection });
  const worker = new Worker('latency', async (job) => probe.started((job.data as { id: number }).id), { connection, concurrency: 1 });
  try {
    await worker.waitUntilReady();
    return await probe.measure((id) => queue.add('latency', { id }), options.latencySamples, options.warmUp);
  } finally {
    await worker.close();
    await queue.close();
  }
}

// One BullMQ worker process for bench/peers/bullmq-peer.ts's drain: a process of its own, as
// graphile-worker's CLI is, so its CPU can be read from /proc. It connects, says `ready`, starts
// taking jobs on `go` (so neither its start-up nor the parent's reading is in the drain), says
// `drained` with its own timings once the expected number of jobs completed, and closes on `stop`.
import { Worker } from 'bullmq';

export type DrainWorkerMessage = { type: 'ready' } | { type: 'drained'; completed: number; durationMs: number };
export type DrainWorkerCommand = 'go' | 'stop';

const port = Number(process.env.BENCH_REDIS_PORT);
const expected = Number(process.env.BENCH_JOBS);
const concurrency = Number(process.env.BENCH_CONCURRENCY);
const queueName = process.env.BENCH_QUEUE!;
const send = (message: DrainWorkerMessage) => process.send!(message);

let firstStartedAt: number | undefined;
let completed = 0;
// A no-op job, as graphile-worker's side runs; default options otherwise.
const worker = new Worker(
  queueName,
  async () => {
    firstStartedAt ??= performance.now();
  },
  { connection: { host: '127.0.0.1', port }, concurrency, autorun: false },
);
worker.on('error', (error) => {
  console.error('bullmq drain worker:', error);
  process.exitCode = 1;
});
worker.on('completed', () => {
  completed += 1;
  if (completed === expected) send({ type: 'drained', completed, durationMs: performance.now() - firstStartedAt! });
});

process.on('message', (command: DrainWorkerCommand) => {
  if (command === 'go') {
    worker.run().catch((error: unknown) => {
      console.error('bullmq drain worker:', error);
      process.exit(1);
    });
  } else if (command === 'stop') {
    void worker.close().then(() => process.disconnect());
  }
});

await worker.waitUntilReady();
send({ type: 'ready' });

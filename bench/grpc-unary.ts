// A unary gRPC call, client against client, on the same server over mutual TLS (issue 31): the
// platform's client (createServiceClient: its own HTTP/2 sessions since issue 31) against grpc-js's
// client configured as the platform configured it before (round-robin, the retry policy, the same
// channel options). Calls alternate between the two, so a busy machine slows both alike.
//
//   npm run bench:grpc        GRPC_BENCH_LONE=<calls per client, 400> GRPC_BENCH_SECONDS=<per load round, 3>
//                             BENCH_PROFILE=<dir>: a CPU profile of the server (profile-summary.ts --timeline finds the rounds)
//
// Prints, per client: a lone call's latency (one call every 10 ms: what a job's start waits for),
// and 32 callers' calls/s, latency and CPU per call of the client process and of the server.
import net from 'node:net';
import { Metadata, type ServiceError } from '@grpc/grpc-js';
import { catalogV1 } from '@atelier/contracts';
import { channelCredentialsOf, createServiceClient, tlsChannelOptions } from '@atelier/grpc';
import { freePort, startProcess, testIdentityEnv, testSecurity } from '@atelier/testing';
import { closedLoop, ms, percentile, printTable } from './bench-kit.js';
import { processCpuMs } from './process-cpu.js';

const LONE_CALLS = Number(process.env.GRPC_BENCH_LONE ?? 400);
const LOAD_SECONDS = Number(process.env.GRPC_BENCH_SECONDS ?? 3);
const CALLERS = 32;
const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

const port = await freePort();
const server = await startProcess({
  name: 'grpc-unary-server',
  entry: 'bench/grpc-unary-server.ts',
  port,
  env: { GRPC_PORT: String(port), ...(await testIdentityEnv('catalog')) } as Record<string, string>,
  nodeArgs: process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [],
  ready: (address) =>
    new Promise((resolve) => {
      const socket = net.connect(Number(address.split(':')[1]), '127.0.0.1');
      socket.once('connect', () => resolve(true)).once('error', () => resolve(false));
      socket.once('close', () => socket.destroy());
      socket.once('connect', () => socket.end());
    }),
});

const security = await testSecurity('gateway');
const address = server.address;
const platform = createServiceClient(catalogV1.CatalogServiceClient, address, security);
// grpc-js's client as libs/grpc/src/client.ts configured it for unary calls before issue 31.
const grpcJs = new catalogV1.CatalogServiceClient(address, channelCredentialsOf(security, 'catalog'), {
  ...tlsChannelOptions('catalog'),
  'grpc.service_config': JSON.stringify({
    loadBalancingConfig: [{ round_robin: {} }],
    methodConfig: [
      {
        name: [{ service: 'atelier.catalog.v1.CatalogService' }],
        retryPolicy: {
          maxAttempts: 4,
          initialBackoff: '0.1s',
          maxBackoff: '2s',
          backoffMultiplier: 2,
          retryableStatusCodes: ['UNAVAILABLE'],
        },
      },
    ],
  }),
  'grpc.enable_retries': 1,
  'grpc.keepalive_time_ms': 30_000,
  'grpc.keepalive_timeout_ms': 10_000,
  'grpc.initial_reconnect_backoff_ms': 250,
  'grpc.max_reconnect_backoff_ms': 2_000,
  'grpc.enable_channelz': 0,
});
const request = { modelId: 'm' };
const clients: Record<string, () => Promise<unknown>> = {
  'createServiceClient (own HTTP/2)': () => platform.getModel(request),
  'grpc-js client': () =>
    new Promise((resolve, reject) =>
      grpcJs.getModel(request, new Metadata(), { deadline: Date.now() + 3_000 }, (error: ServiceError | null, response) =>
        error ? reject(error) : resolve(response),
      ),
    ),
};
const names = Object.keys(clients);

try {
  // Warm both: connections, code.
  for (const name of names) for (let i = 0; i < 500; i += 1) await clients[name]!();

  const lone: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
  for (let i = 0; i < LONE_CALLS; i += 1) {
    // Each round starts with the other client.
    for (const name of i % 2 === 0 ? names : [...names].reverse()) {
      await sleep(10);
      const startedAt = performance.now();
      await clients[name]!();
      lone[name]!.push(performance.now() - startedAt);
    }
  }

  const loaded: Record<string, { calls: number; seconds: number; latencies: number[]; clientCpuMs: number; serverCpuMs: number }> =
    Object.fromEntries(names.map((name) => [name, { calls: 0, seconds: 0, latencies: [], clientCpuMs: 0, serverCpuMs: 0 }]));
  for (const round of [0, 1]) {
    for (const name of round === 0 ? names : [...names].reverse()) {
      const clientBefore = process.cpuUsage();
      const serverBefore = processCpuMs(server.child.pid);
      const run = await closedLoop(async () => void (await clients[name]!()), {
        concurrency: CALLERS,
        durationMs: LOAD_SECONDS * 1000,
        warmupMs: 0,
      });
      const client = process.cpuUsage(clientBefore);
      const totals = loaded[name]!;
      const calls = run.opsPerSecond * LOAD_SECONDS;
      totals.calls += calls;
      totals.seconds += LOAD_SECONDS;
      totals.latencies.push(...run.latenciesMs);
      totals.clientCpuMs += (client.user + client.system) / 1000;
      totals.serverCpuMs += processCpuMs(server.child.pid) - serverBefore;
      if (run.errors > 0) throw new Error(`${name}: ${run.errors} calls failed`, { cause: run.firstError });
    }
  }

  printTable(
    `a unary call (GetModel, ~200 bytes each way) over mutual TLS, the two clients alternating; lone: one call every 10 ms, ${LONE_CALLS} each; loaded: ${CALLERS} callers, 2 × ${LOAD_SECONDS} s each`,
    names.map((name) => {
      const totals = loaded[name]!;
      return {
        client: name,
        'lone p50 ms': ms(percentile(lone[name]!, 50)),
        'lone p99 ms': ms(percentile(lone[name]!, 99)),
        'loaded calls/s': Math.round(totals.calls / totals.seconds),
        'loaded p50 ms': ms(percentile(totals.latencies, 50)),
        'loaded p99 ms': ms(percentile(totals.latencies, 99)),
        'client CPU ms/call': Number((totals.clientCpuMs / totals.calls).toFixed(3)),
        'server CPU ms/call': Number((totals.serverCpuMs / totals.calls).toFixed(3)),
      };
    }),
  );
} finally {
  platform.close();
  grpcJs.close();
  await server.stop();
}

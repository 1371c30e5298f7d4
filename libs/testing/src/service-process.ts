import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { entryPointOf, isServiceReady, migrationEntryPointOf, platformService, type PlatformService } from '@atelier/platform';
import { testIdentityEnv } from './test-pki.js';
import { testProductEventsKey } from './test-product-events-key.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

// Ports handed out come from below Linux's ephemeral range (32768–60999 by default): a port
// taken from that range and released can be grabbed by any outgoing connection before the
// child binds it (an EADDRINUSE at start-up that CI has seen). Below it, only listeners compete.
// Each test process draws from its own sixteenth of the range (by pid), so two processes running
// at once rarely draw from the same ports at all; the bind check covers the rest.
const PORT_SLICE = 750;
const sliceLow = 20_000 + (process.pid % 16) * PORT_SLICE;
const PORT_RANGE = { low: sliceLow, high: sliceLow + PORT_SLICE } as const;
const handedOut = new Set<number>();

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    // Services listen on all interfaces, so that is what is checked.
    server.listen({ port, host: '0.0.0.0', exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** A TCP port nothing listens on, not handed out before by this process, for a child to bind. */
export async function freePort(): Promise<number> {
  for (let tries = 0; tries < 200; tries += 1) {
    const port = PORT_RANGE.low + Math.floor(Math.random() * (PORT_RANGE.high - PORT_RANGE.low));
    if (handedOut.has(port)) continue;
    if (await bindable(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error(`no free TCP port found in ${PORT_RANGE.low}–${PORT_RANGE.high}`);
}

export interface ServiceProcess {
  readonly name: string;
  readonly port: number;
  /** `127.0.0.1:<port>`. */
  readonly address: string;
  /** Where a gRPC service serves Prometheus /metrics (startGrpcServiceProcess only). */
  readonly metricsPort?: number;
  /** `127.0.0.1:<port>` of a gRPC service's plaintext health-only port (startGrpcServiceProcess only). */
  readonly healthAddress?: string;
  readonly child: ChildProcess;
  /** What the process printed so far (for failure messages). */
  output(): string;
  /** SIGTERM, then wait for the exit; resolves with the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL: a crash, for crash-safety tests. */
  kill(): Promise<void>;
  /** SIGSTOP: the process hangs (a stalled peer: its connections stay open, nothing answers). */
  pause(): void;
  /** SIGCONT after pause(). */
  resume(): void;
  /** Starts the same service again (same port, same environment) once this one has exited. */
  restart(): Promise<ServiceProcess>;
}

// Children still running when this process exits (a crashed test or benchmark) are killed, so
// no service is left behind holding ports and database connections.
const liveChildren = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of liveChildren) child.kill('SIGKILL');
});

/** Kills `child` when this process exits, if it is still running then. */
export function killOnExit(child: ChildProcess): void {
  liveChildren.add(child);
  child.once('exit', () => liveChildren.delete(child));
}

/**
 * With ATELIER_RUN_BUILT=1 services run from their `npm run build` bundles (`dist/main.js`, plain
 * node, as in the images) instead of their TypeScript sources under tsx: benchmarks use it to
 * measure what production runs. Other entries (benchmark helpers) always run under tsx.
 */
function nodeCommand(entry: string): string[] {
  const match = /^services\/([^/]+)\/src\/(main\.ts|db\/migrate-cli\.ts)$/.exec(entry);
  if (process.env.ATELIER_RUN_BUILT !== '1' || !match) return ['--import', 'tsx', path.join(repoRoot, entry)];
  const built = path.join(repoRoot, 'services', match[1]!, 'dist', match[2] === 'main.ts' ? 'main.js' : 'migrate.js');
  if (!existsSync(built)) throw new Error(`ATELIER_RUN_BUILT: ${path.relative(repoRoot, built)} is missing; run \`npm run build\` first`);
  return [built];
}

/**
 * The Node flags a service runs with in its image (`atelier.nodeFlags` in its package.json, see
 * serviceNodeFlags in scripts/node-runtime.mjs): tests and benchmarks run it with the same ones.
 */
function serviceNodeFlags(entry: string): string[] {
  const service = /^services\/([^/]+)\/src\/main\.ts$/.exec(entry)?.[1];
  if (!service) return [];
  const manifest = JSON.parse(readFileSync(path.join(repoRoot, 'services', service, 'package.json'), 'utf8')) as {
    atelier?: { nodeFlags?: string[] };
  };
  return manifest.atelier?.nodeFlags ?? [];
}

function runEntry(entry: string, env: Record<string, string>, nodeArgs: readonly string[] = []): ChildProcess {
  const child = spawn(process.execPath, [...serviceNodeFlags(entry), ...nodeArgs, ...nodeCommand(entry)], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  killOnExit(child);
  return child;
}

/**
 * Starts a service of this repository as a real process, the way it runs in production (its
 * own main.ts, configuration from the environment), and waits until `ready` answers true.
 * Services never import each other, so tests that need a peer service start it like this.
 */
export async function startProcess(options: {
  name: string;
  entry: string;
  port: number;
  env: Record<string, string>;
  ready: (address: string) => Promise<boolean>;
  readyTimeoutMs?: number;
  /** Extra node flags, e.g. `--cpu-prof` for profiling (not allowed in NODE_OPTIONS). */
  nodeArgs?: readonly string[];
  metricsPort?: number;
  healthPort?: number;
}): Promise<ServiceProcess> {
  const child = runEntry(options.entry, options.env, options.nodeArgs);
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const address = `127.0.0.1:${options.port}`;
  const handle: ServiceProcess = {
    name: options.name,
    port: options.port,
    address,
    metricsPort: options.metricsPort,
    healthAddress: options.healthPort === undefined ? undefined : `127.0.0.1:${options.healthPort}`,
    child,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
    pause: () => child.kill('SIGSTOP'),
    resume: () => child.kill('SIGCONT'),
    restart: async () => {
      await exited;
      return startProcess(options);
    },
  };
  const deadline = Date.now() + (options.readyTimeoutMs ?? 30_000);
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${options.name} exited (${child.exitCode ?? child.signalCode}) before it was ready:\n${output}`);
    }
    if (await options.ready(address).catch(() => false)) return handle;
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  await handle.kill();
  throw new Error(`${options.name} was not ready within ${options.readyTimeoutMs ?? 30_000} ms:\n${output}`);
}

/** Runs a service's migrations (it owns a schema and env.DATABASE_URL names the database). */
function migrate(service: PlatformService, env: Record<string, string>): void {
  const entry = migrationEntryPointOf(service);
  if (!entry || !env.DATABASE_URL) return;
  const migrated = spawnSync(process.execPath, nodeCommand(entry), { cwd: repoRoot, env: { ...process.env, ...env }, encoding: 'utf8' });
  if (migrated.status !== 0) throw new Error(`migrations of ${service.name} failed:\n${migrated.stdout}${migrated.stderr}`);
}

/**
 * A port from freePort() is free when handed out, not when the child binds it moments later:
 * another test process may take it in between. A start that failed on EADDRINUSE is tried again
 * on ports drawn anew (a port the caller fixed stays as it is).
 */
async function startOnFreePorts(start: () => Promise<ServiceProcess>): Promise<ServiceProcess> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await start();
    } catch (error) {
      if (attempt >= 3 || !(error instanceof Error) || !error.message.includes('EADDRINUSE')) throw error;
    }
  }
}

/**
 * Runs a service's migrations, then starts its gRPC server as a process on a free port (or
 * env.GRPC_PORT), with the service's own certificate from this test process's CA (`testPki`) and
 * this test process's product events key (`testProductEventsKey`, unless env gives one), and
 * waits for its plaintext grpc.health.v1 port to answer SERVING.
 */
export async function startGrpcServiceProcess(
  name: string,
  env: Record<string, string>,
  nodeArgs: readonly string[] = [],
): Promise<ServiceProcess> {
  const service = platformService(name);
  if (service.protocol !== 'grpc') throw new Error(`${name} is not a gRPC service: start it with startHttpServiceProcess`);
  migrate(service, env);
  return startOnFreePorts(async () => {
    // A given GRPC_PORT is kept: peers that call each other (media ↔ jobs) need an address first.
    const [port, metricsPort, healthPort] = [env.GRPC_PORT ? Number(env.GRPC_PORT) : await freePort(), await freePort(), await freePort()];
    return startProcess({
      name,
      entry: entryPointOf(service),
      port,
      metricsPort,
      healthPort,
      env: {
        LOG_LEVEL: 'warn',
        ...(await testIdentityEnv(name)),
        PRODUCT_EVENTS_USER_KEY: testProductEventsKey(),
        ...env,
        GRPC_PORT: String(port),
        METRICS_PORT: String(metricsPort),
        GRPC_HEALTH_PORT: String(healthPort),
      },
      ready: () => isServiceReady(service, { host: '127.0.0.1', port, healthPort }),
      nodeArgs,
    });
  });
}

/**
 * Starts an HTTP service (gateway, worker, provider-sim) as a process on a free port, with its own
 * certificate when it speaks mutual TLS, and waits for its readiness path to answer 200.
 */
export async function startHttpServiceProcess(
  name: string,
  env: Record<string, string>,
  options: { nodeArgs?: readonly string[]; readyTimeoutMs?: number } = {},
): Promise<ServiceProcess> {
  const service = platformService(name);
  if (service.protocol !== 'http') throw new Error(`${name} is not an HTTP service: start it with startGrpcServiceProcess`);
  return startOnFreePorts(async () => {
    const port = await freePort();
    return startProcess({
      name,
      entry: entryPointOf(service),
      port,
      env: {
        LOG_LEVEL: 'warn',
        ...(service.mtls ? await testIdentityEnv(name) : {}),
        ...env,
        HTTP_PORT: String(port),
      },
      ready: () => isServiceReady(service, { host: '127.0.0.1', port }),
      nodeArgs: options.nodeArgs,
      readyTimeoutMs: options.readyTimeoutMs,
    });
  });
}

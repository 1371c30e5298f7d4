// The local platform (`npm start`): every service on loopback with migrations applied first,
// prefixed readable logs, a development JWT, services restarted when they die (supervisor.ts),
// a status port (platform-status.ts), and a bounded stop on Ctrl-C (stop-signals.ts).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { type Server } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureDatabaseExists } from '@atelier/db';
import {
  PLATFORM_SERVICES,
  ensureDevPki,
  entryPointOf,
  isServiceReady,
  migrationEntryPointOf,
  portVariableOf,
  type DevPki,
} from '@atelier/platform';
import { DEV_AUDIENCE, DEV_ISSUER, devCredentialsKekFile, devKeys, devProductEventsKey } from './dev-keys.js';
import { localInfrastructure, type Infrastructure } from './local-infrastructure.js';
import { serviceNodeFlags } from './node-runtime.mjs';
import { platformReadiness, startStatusServer, type PlatformPhase } from './platform-status.js';
import { onStopSignals } from './stop-signals.js';
import { Supervisor } from './supervisor.js';

/** Log prefixes and the banner line up on the longest service name. */
const NAME_WIDTH = Math.max(13, ...PLATFORM_SERVICES.map((service) => service.name.length));

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// PLATFORM_DATA_DIR moves what npm start keeps between runs (an embedded Postgres's data, a
// nats-server's store, the dev keys and certificates) out of .data/: a test runs on a folder of its own.
const dataDir = path.resolve(root, process.env.PLATFORM_DATA_DIR || '.data');
/** A path in the repository relative to it (".data/dev-pki"), any other one as it is. */
const shownPath = (file: string) => (path.relative(root, file).startsWith('..') ? file : path.relative(root, file));
const colours = [36, 35, 33, 32, 34, 31, 90];
let env: NodeJS.ProcessEnv = process.env;
let pki: DevPki | undefined;

/** Runs a service's TypeScript entry point directly (no npm/sh in between, so signals arrive). */
function run(name: string, entry: string, extraEnv: Record<string, string>, colour: number): ChildProcess {
  // A service runs with its own Node flags, as in its image.
  const service = /^services\/([^/]+)\/src\/main\.ts$/.exec(entry)?.[1];
  const child = spawn(process.execPath, [...(service ? serviceNodeFlags(service) : []), '--import', 'tsx', entry], {
    cwd: root,
    env: { ...env, ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const prefix = `\x1b[${colour}m${name.padEnd(NAME_WIDTH)}\x1b[0m| `;
  for (const stream of [child.stdout, child.stderr]) {
    let buffered = '';
    stream.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) process.stdout.write(prefix + line + '\n');
    });
  }
  return child;
}

/** How `npm start` keeps its services running (docs/development.md, "npm start"). */
const supervisor = new Supervisor({
  backoff: { baseMs: 1_000, maxMs: 30_000 },
  stableAfterMs: 60_000,
  maxRapidFailures: 5,
  readyTimeoutMs: 90_000,
  // A service forces its own exit at most 35 s after SIGTERM by default (the worker: 25 s drain +
  // 10 s margin; the others 10 s + 5 s): the bound lies past that, so that the drain, not SIGKILL,
  // ends a service. Most stop within a second.
  stopTimeoutMs: 40_000,
  log: (line, level) => console.log(level === 'alarm' ? `\x1b[1;31mplatform: ${line}\x1b[0m` : `platform: ${line}`),
});
const statusPort = Number(process.env.PLATFORM_STATUS_PORT ?? 8070);
if (!Number.isInteger(statusPort) || statusPort < 1 || statusPort > 65_535) {
  console.error(`platform: PLATFORM_STATUS_PORT must be a port number (1–65535), not "${process.env.PLATFORM_STATUS_PORT}"`);
  process.exit(1);
}
let phase: PlatformPhase = 'starting';
let statusServer: Server | undefined;
let infrastructure: Infrastructure | undefined;

let stopping: Promise<void> | undefined;
function stopAll(): Promise<void> {
  phase = 'stopping';
  stopping ??= (async () => {
    await supervisor.stop();
    await infrastructure?.stop();
    statusServer?.close();
  })();
  return stopping;
}
onStopSignals({
  stop: stopAll,
  force: () => {
    supervisor.kill();
    infrastructure?.kill();
  },
  log: (line) => console.log(`\nplatform: ${line}`),
});

try {
  console.log(`platform: Node.js ${process.version} (${process.execPath})`);
  // First: a second npm start fails here, before it touches the first one's infrastructure.
  statusServer = await startStatusServer(statusPort, () => platformReadiness(phase, supervisor.status()));
  infrastructure = await localInfrastructure(dataDir);
  for (const line of infrastructure.describe) console.log(`platform: ${line}`);
  const keys = process.env.JWT_PUBLIC_KEY || process.env.JWKS_URL ? undefined : await devKeys(dataDir);
  // Each service's certificate for mutual TLS, from a development CA made on first start.
  pki = await ensureDevPki(path.join(dataDir, 'dev-pki'));
  env = {
    ...process.env,
    DATABASE_URL: infrastructure.databaseUrl,
    NATS_URL: infrastructure.natsUrl,
    S3_EMBEDDED_DIR: process.env.S3_EMBEDDED_DIR ?? path.join(dataDir, 's3'),
    ...(keys ? { JWT_PUBLIC_KEY: keys.publicKeyPem, JWT_ISSUER: DEV_ISSUER, JWT_AUDIENCE: DEV_AUDIENCE } : {}),
    PRODUCT_EVENTS_USER_KEY: process.env.PRODUCT_EVENTS_USER_KEY || devProductEventsKey(dataDir),
    CREDENTIALS_KEK_FILE: process.env.CREDENTIALS_KEK_FILE || devCredentialsKekFile(dataDir),
  };
  if (await ensureDatabaseExists(infrastructure.databaseUrl)) console.log('platform: created the database');
  const consoleDir = ensureConsoleBuild();
  for (const [i, service] of PLATFORM_SERVICES.entries()) {
    const migrations = migrationEntryPointOf(service);
    if (!migrations) continue;
    const failure = await supervisor.run(`${service.name}:mig`, run(`${service.name}:mig`, migrations, {}, colours[i % colours.length]!));
    if (failure) throw new Error(`migrations of ${service.name} failed (${failure})`);
  }
  for (const [i, service] of PLATFORM_SERVICES.entries()) {
    const extraEnv = {
      ...(service.mtls ? pki!.filesOf(service.name) : {}),
      [portVariableOf(service)]: String(service.port),
      ...(service.name === 'gateway' && consoleDir ? { CONSOLE_DIR: consoleDir } : {}),
      // Every service shares this host: the gRPC services' metrics cannot all be on 9464.
      ...(service.protocol === 'grpc'
        ? { METRICS_PORT: String(service.localMetricsPort), GRPC_HEALTH_PORT: String(service.healthPort) }
        : {}),
    };
    await supervisor.start({
      name: service.name,
      spawn: () => run(service.name, entryPointOf(service), extraEnv, colours[i % colours.length]!),
      isReady: () => isServiceReady(service, { host: '127.0.0.1', port: service.port }),
    });
  }
  phase = 'running';
  console.log('\nAtelier is up.');
  console.log('  API             http://127.0.0.1:8080/api/v1');
  console.log('  Docs (OpenAPI)  http://127.0.0.1:8080/docs');
  if (consoleDir) console.log(`  Console         http://127.0.0.1:8080/console/${keys ? `#token=${keys.adminToken}` : ''}`);
  for (const service of PLATFORM_SERVICES)
    console.log(
      `  ${service.name.padEnd(NAME_WIDTH + 2)} ${service.protocol === 'grpc' ? 'gRPC' : 'HTTP'} 127.0.0.1:${service.port}` +
        (service.protocol === 'grpc' ? `  metrics http://127.0.0.1:${service.localMetricsPort}/metrics` : ''),
    );
  if (keys) {
    console.log(`\n  Development tokens (12 h; also in ${shownPath(path.join(dataDir, 'dev-tokens.json'))}):`);
    console.log(`  user dev-user:   ${keys.userToken}`);
    console.log(`  admin dev-admin: ${keys.adminToken}`);
    console.log('\n  Try: curl -H "Authorization: Bearer <user token>" http://127.0.0.1:8080/api/v1/creation/catalog');
    console.log('  Or, in another shell: npm run demo');
  }
  const ops = pki!.filesOf('ops');
  console.log(
    `\n  Internal gRPC is mutual TLS; development certificates are in ${shownPath(path.join(dataDir, 'dev-pki'))}. The operator CLI calls`,
  );
  console.log(`  jobs as "ops": GRPC_TLS_CA_FILE=${ops.GRPC_TLS_CA_FILE} GRPC_TLS_CERT_FILE=${ops.GRPC_TLS_CERT_FILE} \\`);
  console.log(`    GRPC_TLS_KEY_FILE=${ops.GRPC_TLS_KEY_FILE} npx atelier-ops dead-letters list`);
  console.log(`\n  Status: http://127.0.0.1:${statusPort}/readyz (200 while every service is up, else 503 naming the ones that are not).`);
  console.log('  A service that exits is reported here and restarted. Ctrl-C stops everything (twice: at once).\n');
} catch (error) {
  // A Ctrl-C during start-up ends the service being started: the signal's stop exits, not this.
  if (!stopping) {
    console.error(`platform: ${(error as Error).message}`);
    await stopAll();
    process.exit(1);
  }
}

/**
 * The operators' console, built once (vite build apps/console) so the gateway can serve it at
 * /console; a failed build leaves the platform running without it. Answers its directory.
 */
function ensureConsoleBuild(): string | undefined {
  const dist = path.join(root, 'apps/console/dist');
  if (!existsSync(path.join(dist, 'index.html'))) {
    console.log('platform: building the console (npm run build:console)');
    const build = spawnSync(process.execPath, [path.join(root, 'node_modules/vite/bin/vite.js'), 'build', 'apps/console'], {
      cwd: root,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    if (build.status !== 0) {
      console.error('platform: the console did not build; the platform runs without /console');
      return undefined;
    }
  }
  return dist;
}

// The local platform (`npm start`): every service on loopback with migrations applied first,
// prefixed readable logs, a development JWT, and a clean stop on Ctrl-C.
import { spawn, type ChildProcess } from 'node:child_process';
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
  type PlatformService,
} from '@atelier/platform';
import { DEV_AUDIENCE, DEV_ISSUER, devKeys } from './dev-keys.js';
import { localInfrastructure } from './local-infrastructure.js';
import { serviceNodeFlags } from './node-runtime.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dataDir = path.join(root, '.data');
const colours = [36, 35, 33, 32, 34, 31, 90];
const children: ChildProcess[] = [];
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
  const prefix = `\x1b[${colour}m${name.padEnd(13)}\x1b[0m| `;
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

function exited(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.on('exit', (code) => resolve(code ?? 1));
  });
}

async function waitReady(service: PlatformService, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${service.name} exited with code ${child.exitCode}`);
    if (await isServiceReady(service, { host: '127.0.0.1', port: service.port })) return;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  throw new Error(`${service.name} was not ready within 90 s`);
}

let infrastructure: Awaited<ReturnType<typeof localInfrastructure>> | undefined;
async function stopAll(): Promise<void> {
  // The gateway and workers first, the services they call last.
  for (const child of [...children].reverse()) {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await exited(child);
    }
  }
  await infrastructure?.stop();
}

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    console.log('\nplatform: stopping every service…');
    void stopAll().then(() => process.exit(0));
  });
}

try {
  console.log(`platform: Node.js ${process.version} (${process.execPath})`);
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
  };
  if (await ensureDatabaseExists(infrastructure.databaseUrl)) console.log('platform: created the database');
  for (const [i, service] of PLATFORM_SERVICES.entries()) {
    const migrations = migrationEntryPointOf(service);
    if (!migrations) continue;
    const code = await exited(run(`${service.name}:mig`, migrations, {}, colours[i % colours.length]!));
    if (code !== 0) throw new Error(`migrations of ${service.name} failed`);
  }
  for (const [i, service] of PLATFORM_SERVICES.entries()) {
    const child = run(
      service.name,
      entryPointOf(service),
      {
        ...(service.mtls ? pki!.filesOf(service.name) : {}),
        [portVariableOf(service)]: String(service.port),
        // Every service shares this host: the gRPC services' metrics cannot all be on 9464.
        ...(service.protocol === 'grpc'
          ? { METRICS_PORT: String(service.localMetricsPort), GRPC_HEALTH_PORT: String(service.healthPort) }
          : {}),
      },
      colours[i % colours.length]!,
    );
    children.push(child);
    await waitReady(service, child);
  }
  console.log('\nAtelier is up.');
  console.log('  API             http://127.0.0.1:8080/api/v1');
  console.log('  Docs (OpenAPI)  http://127.0.0.1:8080/docs');
  for (const service of PLATFORM_SERVICES)
    console.log(
      `  ${service.name.padEnd(15)} ${service.protocol === 'grpc' ? 'gRPC' : 'HTTP'} 127.0.0.1:${service.port}` +
        (service.protocol === 'grpc' ? `  metrics http://127.0.0.1:${service.localMetricsPort}/metrics` : ''),
    );
  if (keys) {
    console.log('\n  Development tokens (12 h; also in .data/dev-tokens.json):');
    console.log(`  user dev-user:   ${keys.userToken}`);
    console.log(`  admin dev-admin: ${keys.adminToken}`);
    console.log('\n  Try: curl -H "Authorization: Bearer <user token>" http://127.0.0.1:8080/api/v1/creation/catalog');
    console.log('  Or, in another shell: npm run demo');
  }
  const ops = pki!.filesOf('ops');
  console.log('\n  Internal gRPC is mutual TLS; development certificates are in .data/dev-pki. The operator CLI calls');
  console.log(`  jobs as "ops": GRPC_TLS_CA_FILE=${ops.GRPC_TLS_CA_FILE} GRPC_TLS_CERT_FILE=${ops.GRPC_TLS_CERT_FILE} \\`);
  console.log(`    GRPC_TLS_KEY_FILE=${ops.GRPC_TLS_KEY_FILE} npx atelier-ops dead-letters list`);
  console.log('\n  Ctrl-C stops everything.\n');
} catch (error) {
  console.error(`platform: ${(error as Error).message}`);
  await stopAll();
  process.exit(1);
}

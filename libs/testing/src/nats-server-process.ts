import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
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

function clusterArguments(cluster: NatsServerOptions['cluster']): string[] {
  if (!cluster) return [];
  return [
    '--name',
    cluster.serverName,
    '--cluster_name',
    cluster.name,
    '--cluster',
    `nats://127.0.0.1:${cluster.routePort}`,
    '--routes',
    cluster.peerRoutePorts.map((routePort) => `nats://127.0.0.1:${routePort}`).join(','),
  ];
}

export interface NatsServerOptions {
  /** A server configuration file (`-c`): users, permissions. Port, JetStream and store come from here. */
  configFile?: string;
  /** Variables for the server, e.g. passwords the configuration reads as `$NAME`. */
  env?: Record<string, string>;
  /** The client port; a free one when unset. */
  port?: number;
  /** Membership of a cluster (startNatsCluster): this node's name, route port and its peers' route ports. */
  cluster?: { name: string; serverName: string; routePort: number; peerRoutePorts: readonly number[] };
}

export async function startNatsServer(options: NatsServerOptions = {}): Promise<NatsServerProcess> {
  const binary = natsServerBinary();
  const port = options.port ?? (await freePort());
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
    child = spawn(binary, [...config, '-a', '127.0.0.1', '-p', String(port), '-js', '-sd', store, ...clusterArguments(options.cluster)], {
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

/**
 * A JetStream cluster of a test's own: `size` nodes on loopback, routed to each other, each with
 * its own client port, route port and store, so a fault test can kill one node (a crash) while
 * streams with replicas keep serving from the others. Resolves once the cluster serves JetStream.
 */
export interface NatsClusterProcess {
  /** Every node's client URL, comma-separated: give it to the services as NATS_URL. */
  readonly url: string;
  readonly nodes: readonly NatsServerProcess[];
  /** Stops every node for good and removes their stores. */
  close(): Promise<void>;
}

/** Resolves once the cluster answers JetStream requests: it elected its meta leader. */
async function jetStreamReady(url: string): Promise<void> {
  const nc = await connect({ servers: url.split(','), name: 'nats-cluster-readiness' });
  try {
    const deadline = Date.now() + 30_000;
    for (;;) {
      try {
        await (await jetstreamManager(nc, { timeout: 1_000 })).getAccountInfo();
        return;
      } catch (error) {
        if (Date.now() > deadline) throw new Error('the NATS cluster did not serve JetStream within 30 s', { cause: error });
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  } finally {
    await nc.close();
  }
}

export async function startNatsCluster(options: { size?: number; name?: string } = {}): Promise<NatsClusterProcess> {
  const size = options.size ?? 3;
  const name = options.name ?? 'atelier-test';
  const routePorts: number[] = [];
  for (let index = 0; index < size; index += 1) routePorts.push(await freePort());
  // Every node must be up for the cluster to elect its JetStream meta leader: start them together.
  const nodes = await Promise.all(
    routePorts.map((routePort, index) =>
      startNatsServer({
        cluster: {
          name,
          serverName: `${name}-${index}`,
          routePort,
          peerRoutePorts: routePorts.filter((peer) => peer !== routePort),
        },
      }),
    ),
  );
  const url = nodes.map((node) => node.url).join(',');
  await jetStreamReady(url);
  return {
    url,
    nodes,
    async close() {
      await Promise.all(nodes.map((node) => node.close()));
    },
  };
}

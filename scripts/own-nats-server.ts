// The NATS `npm start` runs itself when none is given or answers on 127.0.0.1:4222: a nats-server
// from PATH with JetStream, its store under the data folder.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { hasExited } from './supervisor.js';
import { LocalInfrastructureError, outputTail, startedProcess, type StartedProcess } from './started-process.js';

/** How long a fresh nats-server has to accept connections. */
const READY_TIMEOUT_MS = 5_000;

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

function natsServerBinary(): string | undefined {
  return spawnSync('sh', ['-c', 'command -v nats-server || ls /usr/sbin/nats-server 2>/dev/null'], { encoding: 'utf8' })
    .stdout.trim()
    .split('\n')[0];
}

/** Resolves once it accepts connections on 127.0.0.1:`port`; rejects when it exits or stays silent. */
export async function startOwnNatsServer(dataDir: string, port: number): Promise<StartedProcess> {
  const binary = natsServerBinary();
  if (!binary) {
    throw new LocalInfrastructureError(
      'NATS_SERVER_MISSING',
      `no NATS on 127.0.0.1:${port} and no nats-server on PATH: install one (e.g. \`apt-get install nats-server\`) or set NATS_URL to a NATS with JetStream`,
    );
  }
  const storeDir = path.join(dataDir, 'nats');
  mkdirSync(storeDir, { recursive: true });
  const output = outputTail();
  const server = spawn(binary, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', storeDir], { stdio: ['ignore', 'ignore', 'pipe'] });
  server.stderr!.on('data', output.add);
  server.on('error', (error) => output.add(error.message));
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!hasExited(server) && !(await reachable(port))) {
    if (Date.now() > deadline) break;
    await sleep(100);
  }
  if (hasExited(server) || server.pid === undefined || !(await reachable(port))) {
    startedProcess('nats-server', server).kill();
    throw new LocalInfrastructureError(
      'NATS_SERVER_DID_NOT_START',
      `the nats-server started here (${binary}, port ${port}, store ${storeDir}) did not accept connections within ${READY_TIMEOUT_MS / 1000} s; its last lines:\n${output.text()}`,
    );
  }
  return startedProcess('nats-server', server);
}

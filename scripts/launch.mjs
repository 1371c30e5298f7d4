// How `npm start` (scripts/start.mjs) hands over to the platform launcher: a child in a process
// group of its own, so that Ctrl-C reaches the platform only through this relay and the platform
// alone stops its services, Postgres and nats-server — in order, each once. The child also gets an
// IPC channel: when this process dies without relaying anything (SIGKILL from a CI runner or a test
// harness, `kill -9`), the channel closes and the platform stops in order as on Ctrl-C
// (stop-signals.ts) instead of living on as an orphan that holds every port.
// Plain JavaScript on purpose, like start.mjs.
import { spawn } from 'node:child_process';

/**
 * Starts `node args…` as the supervised platform and mirrors its end: signals are relayed to it,
 * and this process exits with its exit code.
 * @param {string} node
 * @param {string[]} args
 * @param {string} cwd
 */
export function launchPlatform(node, args, cwd) {
  const platform = spawn(node, args, { cwd, stdio: ['inherit', 'inherit', 'inherit', 'ipc'], detached: true });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => platform.kill(signal));
  platform.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
  return platform;
}

// atelier-ops, the operator CLI (services/ops-cli/README.md): one command, then exit with its
// status. Started by bin/atelier-ops.mjs from a checkout, or as `node dist/main.js` once built.
import { runCli } from './cli.js';

// `atelier-ops status | head -3` closes the pipe early; that is the reader's choice, not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

const exitCode = await runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env });
process.exitCode = exitCode;

// Every client is closed by now and the process ends on its own. Should a socket linger (a
// Kubernetes request abandoned at its deadline keeps its connection), it must not hold the
// operator's shell: this timer does not keep the process alive, it only ends one that stays.
setTimeout(() => process.exit(exitCode), 1_000).unref();

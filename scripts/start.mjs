// `npm start`: installs dependencies on a fresh clone, then hands over to the platform launcher on
// the pinned Node (scripts/node-runtime.mjs). Plain JavaScript on purpose: it must run before tsx
// — and before the pinned Node itself — is installed.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { installDependencies } from './install.mjs';
import { launchPlatform } from './launch.mjs';
import { nodeRuntimeProblem, pinnedNodeBinary, pinnedNodeMajor, repoRoot as root } from './node-runtime.mjs';

if (!existsSync(path.join(root, 'node_modules', '.package-lock.json'))) {
  console.log('start: installing dependencies (npm ci, npm on the pinned Node)…');
  const status = installDependencies();
  if (status !== 0) process.exit(status);
}
// On a fresh clone npm ran this file on the machine's Node, before the pinned one was installed:
// the platform then starts on the pinned binary instead.
const onPinnedMajor = Number(process.versions.node.split('.')[0]) === pinnedNodeMajor();
const node = onPinnedMajor ? process.execPath : (pinnedNodeBinary() ?? process.execPath);
if (node === process.execPath) {
  const problem = nodeRuntimeProblem('npm start');
  if (problem) {
    console.error(problem);
    process.exit(1);
  }
}
launchPlatform(node, ['--import', 'tsx', path.join(root, 'scripts', 'platform.ts'), ...process.argv.slice(2)], root);

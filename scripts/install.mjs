// `npm run setup`: installs exactly the locked dependencies (npm ci) with npm running on the pinned
// Node, so the install checks every package's engines against the Node the project runs on and
// prints no EBADENGINE warnings on a machine whose own Node is older (scripts/node-runtime.mjs,
// pinnedInstallCommand). Plain JavaScript on purpose: it runs before anything is installed.
// Arguments go on to npm ci (e.g. --ignore-scripts, --dry-run).
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { pinnedInstallCommand, repoRoot } from './node-runtime.mjs';

/** Runs the install in the repository; returns npm's exit status. */
export function installDependencies(npmArgs = []) {
  const { command, args } = pinnedInstallCommand(npmArgs);
  console.log(`setup: ${command} ${args.join(' ')}`);
  const install = spawnSync(command, args, { cwd: repoRoot, stdio: 'inherit' });
  return install.status ?? 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exit(installDependencies(process.argv.slice(2)));
}

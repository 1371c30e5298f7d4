// `npm start`: installs dependencies on a fresh clone, then hands over to the platform launcher.
// Plain JavaScript on purpose: it must run before tsx is installed.
import { spawnSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
if (!existsSync(path.join(root, 'node_modules', '.package-lock.json'))) {
  console.log('start: installing dependencies (npm ci)…');
  const install = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
  if (install.status !== 0) process.exit(install.status ?? 1);
}
const platform = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'scripts', 'platform.ts'), ...process.argv.slice(2)], {
  cwd: root,
  stdio: 'inherit',
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => platform.kill(signal));
platform.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));

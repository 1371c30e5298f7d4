// `npm test` runs the suites project by project (nx run-many -t test): a test file that belongs
// to no project with a test target would silently never run. Every file the vitest config takes
// must be run by exactly one project's target, and each target runs its own folder only.
import { globSync } from 'node:fs';
import path from 'node:path';
import { createProjectGraphAsync } from '@nx/devkit';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../scripts/node-runtime.mjs';
import vitestConfig from '../vitest.config.js';

const { include = [], exclude = [] } = vitestConfig.test ?? {};
const testFiles = globSync(include, { cwd: repoRoot }).filter((file) => !exclude.some((pattern) => path.matchesGlob(file, pattern)));
const projects = Object.values((await createProjectGraphAsync({ exitOnError: true })).nodes).map((node) => node.data);

/** The project a file sits in: the one with the longest root above it. */
function projectOf(file: string) {
  return projects.filter((project) => file.startsWith(`${project.root}/`)).sort((a, b) => b.root.length - a.root.length)[0];
}

describe('nx test targets - every test file runs', () => {
  it('the vitest config takes test files', () => {
    expect(testFiles.length).toBeGreaterThan(50);
  });

  it('each test file sits in a project that has a test target', () => {
    const orphans = testFiles.filter((file) => !projectOf(file)?.targets?.test);
    expect(orphans, 'add "targets": { "test": {} } to the "nx" section of their package.json').toEqual([]);
  });

  it("each test target runs vitest on its project's folder, with the root config", () => {
    for (const project of projects.filter((p) => p.targets?.test)) {
      expect(project.targets?.test?.options, project.name).toMatchObject({ command: `vitest run ${project.root}/`, cwd: '' });
    }
  });

  it("a project's folder filter takes no other project's test files", () => {
    for (const project of projects.filter((p) => p.targets?.test)) {
      // vitest keeps the files whose path relative to the root contains the filter.
      const taken = testFiles.filter((file) => file.includes(`${project.root}/`));
      expect(taken.filter((file) => projectOf(file) !== project)).toEqual([]);
    }
  });
});

// @ts-check
/**
 * The architecture, enforced: @nx/enforce-module-boundaries checks every import against the
 * tags of the project it leaves and the project it reaches (the "nx" section of each
 * package.json; tools/project.json and bench/project.json).
 *
 *   type:service    services/<name>, a deployable: depends on libs only
 *   type:lib        libs/<name>, shared code: depends on libs only
 *   type:test-kit   libs/testing: depended on from test code only (*.test.ts, test-support/,
 *                   *.fixture.ts) and from tools
 *   type:tool       tools/, bench/: depend on libs, the test kit and the repository's scripts
 *   type:app        apps/<name>, a frontend built to static files (the console): depends on no
 *                   other project; its tests may use the test kit
 *   scope:<name>    a service's or app's own code; scope:shared is code every service may use
 *
 * So nothing depends on a service (one benchmark aside, below), and a service reaches no other
 * service's scope: services talk through the gRPC contracts. The rule also rejects a relative
 * path into another project. An import it cannot resolve to a project it lets through: a deep
 * path the package's exports hide (`@atelier/<lib>/src/…`) or a service's package name, which
 * exports nothing. The workspace rule `entry-points` (entry-points.js) rejects those.
 *
 * Within a project, two workspace rules: `no-import-cycle` (no-import-cycle.js) refuses files that
 * import each other, type-only imports included; `layers` (layers.js) holds a service's folders
 * to its layer order (domain/ imports no I/O layer, rpc/ and background/ never each other …).
 */
import { readdirSync } from 'node:fs';
import { createProjectGraphAsync } from '@nx/devkit';
import nx from '@nx/eslint-plugin/nx';

// The rule reads the project graph Nx caches in .nx/ and, when there is none, skips every check
// with a mere warning (a fresh clone, before any nx command). Computing it here first means
// `npx eslint` always checks against the projects as they are now.
await createProjectGraphAsync({ exitOnError: true });

/** Files that only tests run: they may use the test kit. */
export const TEST_FILES = ['**/*.test.ts', '**/test-support/**', '**/*.fixture.ts'];

const folders = (/** @type {string} */ parent) =>
  readdirSync(new URL(`../../${parent}`, import.meta.url), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);
const scopes = [...folders('services'), ...folders('apps')];

// The repository's scripts (scripts/) and root configs (vitest.config.ts …) belong to no project.
const OUTSIDE_PROJECTS = '^(\\.\\./)+(scripts/)?[^/]+\\.(mjs|js)$';

/** @param {{ testKit: boolean }} options whether the source may use libs/testing */
function depConstraints({ testKit }) {
  const libs = testKit ? ['type:lib', 'type:test-kit'] : ['type:lib'];
  return [
    { sourceTag: 'type:service', onlyDependOnLibsWithTags: libs },
    { sourceTag: 'type:lib', onlyDependOnLibsWithTags: libs },
    { sourceTag: 'type:test-kit', onlyDependOnLibsWithTags: ['type:lib', 'type:test-kit'] },
    { sourceTag: 'type:tool', onlyDependOnLibsWithTags: ['type:lib', 'type:test-kit'] },
    // The console runs in a browser: it talks to the gateway over HTTP (its generated client), not to a lib.
    { sourceTag: 'type:app', onlyDependOnLibsWithTags: testKit ? ['type:test-kit'] : [] },
    ...scopes.map((name) => ({ sourceTag: `scope:${name}`, onlyDependOnLibsWithTags: [`scope:${name}`, 'scope:shared'] })),
  ];
}

/**
 * @param {{ testKit: boolean, allow?: string[] }} options
 * @returns {import('eslint').Linter.RuleEntry}
 */
function boundaries({ testKit, allow = [] }) {
  return [
    'error',
    {
      depConstraints: depConstraints({ testKit }),
      allow,
      // The test kit is built on libs (grpc) whose own tests use it: a cycle through test code
      // only. A cycle between two libs' production code is still an error.
      ignoredCircularDependencies: [['@atelier/testing', 'tag:type:lib']],
    },
  ];
}

/**
 * Flat-config blocks: the Nx rule per kind of file, and the entry-point rule everywhere.
 * @type {import('eslint').Linter.Config[]}
 */
export const moduleBoundaries = [
  {
    plugins: { '@nx': /** @type {import('eslint').ESLint.Plugin} */ (nx) },
    rules: {
      '@nx/enforce-module-boundaries': boundaries({ testKit: false }),
      '@nx/workspace-entry-points': 'error',
      '@nx/workspace-no-import-cycle': 'error',
    },
  },
  // Tests reach into any layer of what they test; production code keeps to its order.
  { files: ['services/*/src/**'], ignores: TEST_FILES, rules: { '@nx/workspace-layers': 'error' } },
  { files: TEST_FILES, rules: { '@nx/enforce-module-boundaries': boundaries({ testKit: true }) } },
  {
    // Tools also run the repository's scripts and read its root configs.
    files: ['tools/**'],
    rules: { '@nx/enforce-module-boundaries': boundaries({ testKit: true, allow: [OUTSIDE_PROJECTS] }) },
  },
  {
    // bench:scale explains the statements jobs runs, so it imports them from the service's
    // source: the one place outside a service that reaches into one. bench:takeover times the
    // fault suite's frozen worker, on the fault suite's platform: it imports them from tools/chaos.
    files: ['bench/**'],
    rules: {
      '@nx/enforce-module-boundaries': boundaries({
        testKit: true,
        allow: [OUTSIDE_PROJECTS, '^\\.\\./services/[^/]+/src/', '^\\.\\./tools/chaos/[^/]+\\.js$'],
      }),
    },
  },
];

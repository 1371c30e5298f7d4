import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint, RuleTester } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import { entryPoints } from './entry-points.js';
import { moduleBoundaries } from './module-boundaries.js';

RuleTester.describe = describe;
RuleTester.it = it;
RuleTester.itOnly = it.only;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const at = (file: string) => path.join(root, file);

// The repository's boundary blocks on the real project graph, without the type-aware rules (the
// files linted here exist only in the test).
const eslint = new ESLint({
  cwd: root,
  overrideConfigFile: true,
  overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } }, ...moduleBoundaries],
});

/** The rule and message of each problem `code` has when it sits at `file`. */
async function problems(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: at(file) });
  return (result?.messages ?? []).map((message) => `${message.ruleId}: ${message.messageId ?? message.message}`);
}

const BOUNDARIES = '@nx/enforce-module-boundaries';
const ENTRY_POINTS = '@nx/workspace-entry-points';

describe('module boundaries - tags (@nx/enforce-module-boundaries)', () => {
  it.each([
    ['a service uses a lib', 'services/catalog/src/server.ts', "import { x } from '@atelier/grpc';"],
    ['a service uses its own files', 'services/catalog/src/server.ts', "import { x } from './rpc/get-model.js';"],
    ['a lib uses a lib', 'libs/grpc/src/server.ts', "import { x } from '@atelier/errors';"],
    ['a service uses an npm package', 'services/catalog/src/server.ts', "import pg from 'pg';"],
    ["a service's test uses the test kit", 'services/jobs/src/x.integration.test.ts', "import { x } from '@atelier/testing';"],
    ["a service's test support uses the test kit", 'services/jobs/src/test-support/x.ts', "import { x } from '@atelier/testing';"],
    ["a lib's test uses the test kit", 'libs/db/src/x.test.ts', "import { x } from '@atelier/testing';"],
    ['the test kit uses a lib', 'libs/testing/src/x.ts', "import { x } from '@atelier/grpc';"],
    ['a tool uses the test kit', 'tools/deploy/x.ts', "import { x } from '@atelier/testing';"],
    ['a tool runs a script', 'tools/deploy/x.ts', "import { x } from '../../scripts/gen-dockerfiles.mjs';"],
  ])('allowed: %s', async (_, file, code) => {
    expect(await problems(file, code)).toEqual([]);
  });

  it.each([
    ['a service reaches into another by a relative path', 'services/jobs/src/x.ts', "import { y } from '../../catalog/src/server.js';"],
    ['a lib reaches into a service by a relative path', 'libs/grpc/src/x.ts', "export { y } from '../../../services/jobs/src/main.js';"],
    [
      'a dynamic import reaches into a lib by a relative path',
      'services/catalog/src/x.ts',
      "const m = await import('../../../libs/db/src/x.js');",
    ],
    ["a service's production code uses the test kit", 'services/jobs/src/x.ts', "import { y } from '@atelier/testing';"],
    ["a lib's production code uses the test kit", 'libs/db/src/x.ts', "import { y } from '@atelier/testing';"],
  ])('rejected: %s', async (_, file, code) => {
    const found = await problems(file, code);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(new RegExp(`^${BOUNDARIES}: `));
  });

  it('rejected: a service imports another service by name (the entry-point rule, since it has no entry point to resolve)', async () => {
    expect(await problems('services/jobs/src/x.ts', "import { y } from '@atelier/catalog';")).toEqual([`${ENTRY_POINTS}: noEntryPoint`]);
    expect(await problems('libs/grpc/src/x.ts', "export { y } from '@atelier/catalog';")).toEqual([`${ENTRY_POINTS}: noEntryPoint`]);
  });
});

const tester = new RuleTester({ languageOptions: { ecmaVersion: 2022, sourceType: 'module' } });

describe('module boundaries - entry points (workspace rule)', () => {
  tester.run('entry-points', entryPoints, {
    valid: [
      { filename: at('services/catalog/src/server.ts'), code: "import { x } from '@atelier/grpc';" },
      { filename: at('services/catalog/src/server.ts'), code: "import { x } from './rpc/get-model.js';" },
      { filename: at('services/catalog/src/server.ts'), code: "import { x } from '@atelier/unknown/x.js';" },
    ],
    invalid: [
      {
        filename: at('services/jobs/src/x.ts'),
        code: "import { y } from '@atelier/catalog';",
        errors: [{ messageId: 'noEntryPoint' }],
      },
      {
        filename: at('libs/grpc/src/x.ts'),
        code: "export * from '@atelier/catalog/src/server.js';",
        errors: [{ messageId: 'noEntryPoint' }],
      },
      {
        filename: at('services/catalog/src/x.ts'),
        code: "import { y } from '@atelier/grpc/src/server.js';",
        errors: [{ messageId: 'deepImport' }],
      },
      {
        filename: at('services/catalog/src/x.ts'),
        code: "const m = await import('@atelier/db/src/pool.js');",
        errors: [{ messageId: 'deepImport' }],
      },
    ],
  });
});

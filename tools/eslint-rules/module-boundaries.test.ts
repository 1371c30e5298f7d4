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

const LAYERS = '@nx/workspace-layers';
const CYCLE = '@nx/workspace-no-import-cycle';

describe("module boundaries - a service's layers (workspace rule)", () => {
  it.each([
    [
      'rpc/ uses db/, domain/ and the handlers’ context',
      'services/jobs/src/rpc/x.ts',
      "import { a } from '../db/job-sql.js';\nimport { b } from '../domain/quota.js';\nimport type { C } from '../jobs-context.js';",
    ],
    ['rpc/ and background/ use announce/', 'services/jobs/src/rpc/x.ts', "import { announce } from '../announce/announce.js';"],
    ['background/ uses announce/', 'services/jobs/src/background/x.ts', "import { announce } from '../announce/announce.js';"],
    ['db/ uses domain/', 'services/community/src/db/x.ts', "import { a } from '../domain/post-rules.js';"],
    ['domain/ uses definitions/ (jobs)', 'services/jobs/src/domain/x.ts', "import { a } from '../definitions/index.js';"],
    ['peers/ use domain/', 'services/community/src/peers/x.ts', "import { a } from '../domain/generation-rules.js';"],
    [
      'attempt/ uses executors/ and peers/',
      'services/worker/src/attempt/x.ts',
      "import { a } from '../executors/job-executor.js';\nimport { b } from '../peers/output-store.js';",
    ],
    ['routes/ use http/', 'services/gateway/src/routes/x.ts', "import { a } from '../http/api-enums.js';"],
    ['a test reaches into any layer', 'services/jobs/src/rpc/x.test.ts', "import { a } from '../background/lease-reaper.js';"],
    [
      'the wiring imports every layer',
      'services/jobs/src/jobs-app.ts',
      "import { a } from './background/lease-reaper.js';\nimport { b } from './rpc/create-job.js';",
    ],
  ])('allowed: %s', async (_, file, code) => {
    expect(await problems(file, code)).toEqual([]);
  });

  it.each([
    [
      'domain/ imports executors/ (the worker’s attempt pipeline)',
      'services/worker/src/domain/x.ts',
      "import type { JobExecutor } from '../executors/job-executor.js';",
    ],
    ['domain/ imports peers/', 'services/worker/src/domain/x.ts', "import { putOutput } from '../peers/output-store.js';"],
    ['domain/ imports db/, even a type', 'services/media/src/domain/x.ts', "import type { Asset } from '../db/asset-sql.js';"],
    ['db/ imports rpc/', 'services/jobs/src/db/x.ts', "import { a } from '../rpc/job-mapper.js';"],
    ['db/ imports background/', 'services/jobs/src/db/transitions/x.ts', "import { a } from '../../background/lease-reaper.js';"],
    ['rpc/ imports background/', 'services/jobs/src/rpc/x.ts', "import { a } from '../background/outbox-relay.js';"],
    ['rpc/admin/ imports background/', 'services/jobs/src/rpc/admin/x.ts', "import { a } from '../../background/outbox-relay.js';"],
    ['background/ imports rpc/', 'services/jobs/src/background/x.ts', "import { a } from '../rpc/job-cancellation.js';"],
    ['announce/ imports background/', 'services/jobs/src/announce/x.ts', "import { a } from '../background/outbox-relay.js';"],
    ['peers/ import db/', 'services/media/src/peers/x.ts', "import { a } from '../db/asset-sql.js';"],
    [
      'the worker’s peers/ import domain/ (the vendor’s client judging the job)',
      'services/worker/src/peers/provider/x.ts',
      "import { JobFailure } from '../../domain/job-failure.js';",
    ],
    [
      'peers/ import background/ (a consumer’s type)',
      'services/media/src/peers/x.ts',
      "import type { JobStatusLookup } from '../background/job-output-cleanup.js';",
    ],
    [
      'the webhooks’ peers/ import fanout/',
      'services/webhooks/src/peers/x.ts',
      "import type { JobOwnerLookup } from '../fanout/lifecycle-fanout.js';",
    ],
    ['executors/ import attempt/', 'services/worker/src/executors/x.ts', "import { a } from '../attempt/job-runner.js';"],
    ['the gateway’s http/ imports routes/', 'services/gateway/src/http/x.ts', "import { jobStatuses } from '../routes/dto-mapper.js';"],
    ['the gateway’s auth/ imports routes/', 'services/gateway/src/auth/x.ts', "import { a } from '../routes/dto-mapper.js';"],
  ])('rejected: %s', async (_, file, code) => {
    expect(await problems(file, code)).toEqual([`${LAYERS}: upward`]);
  });

  it('rejected: a loop imports the handlers’ context (it is handed what it uses)', async () => {
    expect(await problems('services/jobs/src/background/x.ts', "import type { JobsContext } from '../jobs-context.js';")).toEqual([
      `${LAYERS}: context`,
    ]);
  });

  it('rejected: a layer imports the wiring', async () => {
    expect(await problems('services/jobs/src/rpc/x.ts', "import { a } from '../jobs-app.js';")).toEqual([`${LAYERS}: wiring`]);
    expect(await problems('services/worker/src/background/x.ts', "import { a } from '../server.js';")).toEqual([`${LAYERS}: wiring`]);
  });
});

describe('module boundaries - import cycles (workspace rule)', () => {
  it('allowed: the imports of the real files, one way', async () => {
    expect(await problems('services/jobs/src/db/job-row.ts', "import type { ClaimedOutboxRow } from './outbox-row.js';")).toEqual([]);
    expect(await problems('services/ops-cli/src/usage-error.ts', "import type { HelpTopic } from './cli-commands.js';")).toEqual([]);
  });

  it.each([
    // outbox-sql.ts imports job-row.ts (OutboxSubjects): a type-only import back is a cycle too.
    ['two files, type-only', 'services/jobs/src/db/job-row.ts', "import type { ClaimedOutboxRow } from './outbox-sql.js';"],
    // cli-args.ts throws usage-error.ts's UsageError.
    ['two files', 'services/ops-cli/src/usage-error.ts', "import type { HelpTopic } from './cli-args.js';"],
    // create-sql.ts imports job-row.ts, which imports outbox-row.ts.
    ['through a third file', 'services/jobs/src/db/outbox-row.ts', "import type { CreateInput } from './transitions/create-sql.js';"],
    ['in a lib', 'libs/outbox/src/outbox-table.ts', "export { OutboxRelay } from './outbox-relay.js';"],
  ])('rejected: %s', async (_, file, code) => {
    const found = await problems(file, code);
    expect(found).toEqual([`${CYCLE}: cycle`]);
  });

  it('names the cycle in its message', async () => {
    const [result] = await eslint.lintText("import type { ClaimedOutboxRow } from './outbox-sql.js';", {
      filePath: at('services/jobs/src/db/job-row.ts'),
    });
    expect(result?.messages[0]?.message).toContain(
      'services/jobs/src/db/job-row.ts → services/jobs/src/db/outbox-sql.ts → services/jobs/src/db/job-row.ts',
    );
  });
});

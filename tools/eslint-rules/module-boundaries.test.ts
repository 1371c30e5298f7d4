import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { RuleTester } from 'eslint';
import { describe, it } from 'vitest';
import { moduleBoundaries } from './module-boundaries.js';

RuleTester.describe = describe;
RuleTester.it = it;
RuleTester.itOnly = it.only;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const at = (file: string) => path.join(root, file);
const tester = new RuleTester({ languageOptions: { ecmaVersion: 2022, sourceType: 'module' } });

describe('module boundaries - eslint rule', () => {
  tester.run('module-boundaries', moduleBoundaries, {
    valid: [
      { filename: at('services/catalog/src/server.ts'), code: "import { x } from '@atelier/grpc';" },
      { filename: at('services/catalog/src/server.ts'), code: "import { x } from './rpc/get-model.js';" },
      { filename: at('libs/grpc/src/server.ts'), code: "import { x } from '@atelier/errors';" },
      { filename: at('services/catalog/src/server.ts'), code: "import pg from 'pg';" },
    ],
    invalid: [
      {
        filename: at('services/jobs/src/x.ts'),
        code: "import { y } from '@atelier/catalog';",
        errors: [{ messageId: 'serviceImportsService' }],
      },
      {
        filename: at('services/jobs/src/x.ts'),
        code: "import { y } from '../../catalog/src/server.js';",
        errors: [{ messageId: 'crossProjectPath' }],
      },
      {
        filename: at('libs/grpc/src/x.ts'),
        code: "export { y } from '@atelier/catalog';",
        errors: [{ messageId: 'libImportsService' }],
      },
      {
        filename: at('services/catalog/src/x.ts'),
        code: "import { y } from '@atelier/grpc/src/server.js';",
        errors: [{ messageId: 'deepImport' }],
      },
      {
        filename: at('services/catalog/src/x.ts'),
        code: "const m = await import('../../../libs/db/src/migrate.js');",
        errors: [{ messageId: 'crossProjectPath' }],
      },
    ],
  });
});

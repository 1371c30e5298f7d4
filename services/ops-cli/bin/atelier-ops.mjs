#!/usr/bin/env node
// atelier-ops from a checkout (`npx atelier-ops`, `npm exec -w services/ops-cli atelier-ops`).
// The CLI is TypeScript, like every service here: tsx's ESM loader is registered in this very
// process — no second process, so signals, stdio and the exit status stay the CLI's own — with
// the repository's tsconfig, whatever directory the operator runs it from. After `npm run
// build`, `node services/ops-cli/dist/main.js` runs the bundle without tsx.
import { fileURLToPath } from 'node:url';

let register;
try {
  ({ register } = await import('tsx/esm/api'));
} catch {
  process.stderr.write(
    'atelier-ops: tsx is not installed: run `npm ci` at the repository root (atelier-ops runs its TypeScript sources under tsx),\n' +
      'or `npm run build` and run `node services/ops-cli/dist/main.js`\n',
  );
  process.exit(70); // EX_SOFTWARE: the installation, not the command line, is at fault
}
register({ tsconfig: fileURLToPath(new URL('../../../tsconfig.json', import.meta.url)) });
await import('../src/main.ts');

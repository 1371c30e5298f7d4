// `npm run gen:config-docs`: writes docs/configuration.md from the config specs (scripts/config-docs.ts).
// With --check it writes nothing and fails when the file is stale (npm test runs it); --target <file>
// checks or writes another file instead (its test).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CONFIGURATION_DOC, renderConfigurationDoc } from './config-docs.js';
import { repoRoot } from './node-runtime.mjs';

const targetIndex = process.argv.indexOf('--target');
const target = targetIndex === -1 ? CONFIGURATION_DOC : path.resolve(process.argv[targetIndex + 1] ?? '');
const shown = path.relative(repoRoot, target);
const text = await renderConfigurationDoc();

if (process.argv.includes('--check')) {
  let committed: string | undefined;
  try {
    committed = readFileSync(target, 'utf8');
  } catch {
    committed = undefined; // missing: stale
  }
  if (committed !== text) {
    console.error(`config docs: ${shown} is stale. Run \`npm run gen:config-docs\` and commit the result.`);
    process.exit(1);
  }
  console.log(`config docs: ${shown} is up to date`);
} else {
  writeFileSync(target, text);
  console.log(`config docs: wrote ${shown}`);
}

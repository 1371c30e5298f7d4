// docs/configuration.md is generated from the config specs (scripts/config-docs.ts); npm test runs
// `gen-config-docs.ts --check`. These hold the generator to the specs and the check to its word.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { doc, int, str } from '@atelier/config';
import { CONFIGURATION_DOC, configuredProcesses, renderConfigurationDoc, shownDefault } from '../scripts/config-docs.js';
import { repoRoot } from '../scripts/node-runtime.mjs';

const run = promisify(execFile);
const scratch = mkdtempSync(path.join(tmpdir(), 'config-docs-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('docs/configuration.md', () => {
  it('is what the specs give today (npm run gen:config-docs)', async () => {
    expect(readFileSync(CONFIGURATION_DOC, 'utf8')).toBe(await renderConfigurationDoc());
  });

  it('documents every variable of every process, catalog DB_POOL_MAX included', async () => {
    const processes = await configuredProcesses();
    expect(processes.map((process) => process.name)).toEqual(expect.arrayContaining(['catalog', 'jobs', 'gateway', 'worker', 'ops-cli']));
    const text = await renderConfigurationDoc(processes);
    for (const process of processes) {
      const section = text.slice(text.indexOf(`## ${process.name}\n`)).split('\n## ')[0]!;
      for (const variable of Object.keys(process.spec)) expect(section, `${process.name} ${variable}`).toContain(`| \`${variable}\``);
    }
    const catalog = text.slice(text.indexOf('## catalog\n')).split('\n## ')[0]!;
    expect(catalog).toMatch(/\| `DB_POOL_MAX` +\| `5` +\|/);
  });

  it('refuses a variable declared without saying what it does, naming it', async () => {
    const spec = { DB_POOL_MAX: doc(int({ default: 5 }), 'pg connections'), NEW_KNOB: int({ default: 1 }) };
    await expect(renderConfigurationDoc([{ name: 'catalog', source: 'services/catalog/src/config.ts', spec }])).rejects.toThrow(
      'services/catalog/src/config.ts: NEW_KNOB has no doc()',
    );
  });

  it('shows a default as parsed, required, unset, or in the words the spec gives', () => {
    expect(shownDefault(int({ default: 5 }))).toBe('`5`');
    expect(shownDefault(str())).toBe('required');
    expect(shownDefault(doc(str({ default: 'x' }), 'a thing', 'the host of PROVIDER_URL'))).toBe('the host of PROVIDER_URL');
    expect(() => shownDefault({ describe: 'a seed', parse: () => [{ id: 1 }] })).toThrow('give doc() the default in words');
  });

  it('the --check of npm test fails on a stale file and passes on a fresh one', async () => {
    const stale = path.join(scratch, 'stale.md');
    writeFileSync(stale, readFileSync(CONFIGURATION_DOC, 'utf8').replace(/\| `DB_POOL_MAX` .*\n/, ''));
    const check = (target: string) =>
      run('npx', ['tsx', 'scripts/gen-config-docs.ts', '--check', '--target', target], { cwd: repoRoot }).then(
        () => ({ code: 0, stderr: '' }),
        (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
      );
    const answer = await check(stale);
    expect(answer.code).toBe(1);
    expect(answer.stderr).toContain('is stale. Run `npm run gen:config-docs`');
    const fresh = path.join(scratch, 'fresh.md');
    writeFileSync(fresh, readFileSync(CONFIGURATION_DOC, 'utf8'));
    expect((await check(fresh)).code).toBe(0);
  }, 120_000);
});

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { TEST_TMPDIR_VARIABLE, testTempDirectory } from './test-temp-directory.js';

const moduleUrl = new URL('./test-temp-directory.ts', import.meta.url).href;

describe('testing - temporary directories for test material', () => {
  const before = process.env[TEST_TMPDIR_VARIABLE];
  afterEach(() => {
    if (before === undefined) delete process.env[TEST_TMPDIR_VARIABLE];
    else process.env[TEST_TMPDIR_VARIABLE] = before;
  });

  it("makes its directory inside the run's directory when the run has one", () => {
    const run = mkdtempSync(path.join(tmpdir(), 'atelier-temp-dir-test-'));
    try {
      process.env[TEST_TMPDIR_VARIABLE] = run;
      const directory = testTempDirectory('atelier-kek-');
      expect(path.dirname(directory)).toBe(run);
      expect(path.basename(directory).startsWith('atelier-kek-')).toBe(true);
      expect(existsSync(directory)).toBe(true);
    } finally {
      rmSync(run, { recursive: true, force: true });
    }
  });

  it('removes its directory when the process that made it exits', () => {
    const child = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        `const { testTempDirectory } = await import(${JSON.stringify(moduleUrl)}); console.log(testTempDirectory('atelier-exit-test-'));`,
      ],
      { encoding: 'utf8', cwd: path.dirname(fileURLToPath(import.meta.url)) },
    );
    expect(child.status, child.stderr).toBe(0);
    const made = child.stdout.trim();
    expect(made).toContain('atelier-exit-test-');
    expect(existsSync(made)).toBe(false);
  });
});

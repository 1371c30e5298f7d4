import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * Where a test run keeps its temporary files: the directory the test runner's global setup made
 * for this run (ATELIER_TEST_TMPDIR, removed by its teardown), else the system's.
 */
export const TEST_TMPDIR_VARIABLE = 'ATELIER_TEST_TMPDIR';

/**
 * A new temporary directory for this process's test material (a CA, a key-encryption key),
 * removed when the process exits. Inside a test run it lives in the run's directory, which the
 * run's teardown removes too: a test worker the runner kills never reaches its exit handlers, and
 * key material, even a test's, is not left behind.
 */
export function testTempDirectory(prefix: string): string {
  const directory = mkdtempSync(path.join(process.env[TEST_TMPDIR_VARIABLE] ?? tmpdir(), prefix));
  process.once('exit', () => rmSync(directory, { recursive: true, force: true }));
  return directory;
}

import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { testTempDirectory } from './test-temp-directory.js';

let file: string | undefined;

/** A CREDENTIALS_KEK_FILE's text (docs/credentials.md): these ids, each with a random key; the first is current unless `current` says. */
export function kekFileText(ids: readonly string[], current = ids[0]!): string {
  return JSON.stringify({ current, keys: Object.fromEntries(ids.map((id) => [id, randomBytes(32).toString('base64')])) });
}

/**
 * This test process's CREDENTIALS_KEK_FILE for jobs: a random key-encryption key made at run time
 * (never committed) in a file of its own, the same for every jobs the process starts, removed with
 * its directory (testTempDirectory).
 */
export function testCredentialsKekFile(): string {
  if (!file) {
    file = path.join(testTempDirectory('atelier-kek-'), 'kek.json');
    writeFileSync(file, kekFileText(['test-kek-1']), { mode: 0o600 });
  }
  return file;
}

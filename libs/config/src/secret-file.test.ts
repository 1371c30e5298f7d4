import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { watchSecretFile } from './secret-file.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'secret-file-'));
  dirs.push(dir);
  return dir;
}

describe('watchSecretFile', () => {
  it('reads the file, and again after it changes', () => {
    const file = path.join(tempDir(), 'key');
    writeFileSync(file, 'one\n');
    const secret = watchSecretFile(file, { parse: (text) => text.trim(), pollIntervalMs: 60_000 });
    try {
      expect(secret.current()).toBe('one');
      writeFileSync(file, 'second\n');
      expect(secret.refresh()).toBe(true);
      expect(secret.current()).toBe('second');
      expect(secret.refresh()).toBe(false);
    } finally {
      secret.close();
    }
  });

  it('follows a Kubernetes-style symlink swap', () => {
    const dir = tempDir();
    mkdirData(dir, 'v1', 'old-key');
    symlinkSync('v1', path.join(dir, '..data'));
    symlinkSync(path.join('..data', 'key'), path.join(dir, 'key'));
    const secret = watchSecretFile(path.join(dir, 'key'), { parse: (text) => text.trim(), pollIntervalMs: 60_000 });
    try {
      expect(secret.current()).toBe('old-key');
      mkdirData(dir, 'v2', 'new-key');
      symlinkSync('v2', path.join(dir, '..data_tmp'));
      renameSync(path.join(dir, '..data_tmp'), path.join(dir, '..data'));
      secret.refresh();
      expect(secret.current()).toBe('new-key');
    } finally {
      secret.close();
    }
  });

  it('keeps the value in use when the new file is malformed, and says so without its text', () => {
    const file = path.join(tempDir(), 'key');
    writeFileSync(file, 'good');
    const errors: string[] = [];
    const secret = watchSecretFile(file, {
      parse: (text) => {
        if (text.includes('bad')) throw new Error('not a key');
        return text;
      },
      pollIntervalMs: 60_000,
      onError: (error) => errors.push(error.message),
    });
    try {
      writeFileSync(file, 'bad-secret-text');
      expect(secret.refresh()).toBe(false);
      expect(secret.current()).toBe('good');
      expect(errors).toHaveLength(1);
      expect(errors[0]).not.toContain('bad-secret-text');
    } finally {
      secret.close();
    }
  });

  it('refuses to start on a missing file', () => {
    expect(() => watchSecretFile(path.join(tempDir(), 'none'), { parse: (text) => text })).toThrow(/could not be read/);
  });
});

function mkdirData(dir: string, name: string, key: string): void {
  const data = path.join(dir, name);
  mkdirSync(data);
  writeFileSync(path.join(data, 'key'), key);
}

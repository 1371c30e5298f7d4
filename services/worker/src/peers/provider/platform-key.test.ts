import { createHash } from 'node:crypto';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '@atelier/logging';
import { platformKeyId, platformKeySource } from './platform-key.js';

const logger = createLogger({ service: 'platform-key-test', level: 'silent' });
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('the platform key', () => {
  it('is named by a fingerprint that reveals nothing of it', () => {
    const key = 'sk-platform-0123456789';
    expect(platformKeyId(key)).toBe(`platform:${createHash('sha256').update(key).digest('hex').slice(0, 12)}`);
    expect(platformKeyId(key)).not.toContain('0123456789');
  });

  it('comes from PROVIDER_API_KEY without a file', () => {
    const source = platformKeySource({ file: undefined, fallback: 'local-development' }, logger);
    expect(source.current()).toEqual({ apiKey: 'local-development', id: platformKeyId('local-development') });
  });

  it('comes from the file when one is given, and follows it when it is replaced', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'platform-key-'));
    dirs.push(dir);
    const file = path.join(dir, 'key');
    writeFileSync(file, 'first-key-aaaa\n');
    const source = platformKeySource({ file, fallback: 'ignored', pollIntervalMs: 50 }, logger);
    try {
      expect(source.current().apiKey).toBe('first-key-aaaa');
      writeFileSync(`${file}.tmp`, 'second-key-bbbb\n');
      renameSync(`${file}.tmp`, file);
      const deadline = Date.now() + 3_000;
      while (source.current().apiKey !== 'second-key-bbbb' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(source.current()).toEqual({ apiKey: 'second-key-bbbb', id: platformKeyId('second-key-bbbb') });
      // A broken file keeps the key in use.
      writeFileSync(file, 'two words');
      await new Promise((r) => setTimeout(r, 200));
      expect(source.current().apiKey).toBe('second-key-bbbb');
    } finally {
      source.close();
    }
  });
});

import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from './index.js';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      callback();
    },
  });
  return { lines, destination };
}

describe('logging - structured JSON lines', () => {
  it('writes the service, level, time and message as JSON', () => {
    const { lines, destination } = capture();
    createLogger({ service: 'catalog', destination }).info({ modelId: 'm1' }, 'model upserted');
    expect(lines[0]).toMatchObject({ service: 'catalog', level: 'info', msg: 'model upserted', modelId: 'm1' });
    expect(typeof lines[0]?.time).toBe('string');
  });

  it('redacts credentials and prompts', () => {
    const { lines, destination } = capture();
    const logger = createLogger({ service: 'jobs', destination });
    logger.info({ prompt: 'my cat as a knight', request: { token: 'abc', password: 'pw' }, authorization: 'Bearer x' }, 'x');
    const line = JSON.stringify(lines[0]);
    expect(line).not.toContain('my cat as a knight');
    expect(line).not.toContain('Bearer x');
    expect(line).not.toContain('"abc"');
    expect(lines[0]).toMatchObject({ prompt: '[redacted]', request: { token: '[redacted]', password: '[redacted]' } });
  });

  it('honours the level', () => {
    const { lines, destination } = capture();
    const logger = createLogger({ service: 'x', level: 'warn', destination });
    logger.info('hidden');
    logger.warn('shown');
    expect(lines.map((l) => l.msg)).toEqual(['shown']);
  });
});

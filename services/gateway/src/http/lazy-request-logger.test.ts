import { Writable } from 'node:stream';
import Fastify, { LogController, type FastifyBaseLogger } from 'fastify';
import { describe, expect, it, vi } from 'vitest';
import { createLogger } from '@atelier/logging';
import { lazyRequestLoggers } from './lazy-request-logger.js';

/** A pino logger writing its lines into an array. */
function capturedLogger(level = 'info') {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { logger: createLogger({ service: 'gateway-test', level, destination }), lines };
}

describe('lazy request loggers', () => {
  it('makes no child until a line is logged at a level the logger logs, then logs it with the request id', async () => {
    const { logger, lines } = capturedLogger('info');
    const app = Fastify({
      loggerInstance: logger as unknown as FastifyBaseLogger,
      logController: new LogController({ disableRequestLogging: true }),
      childLoggerFactory: lazyRequestLoggers,
    });
    app.get('/quiet', async (request) => {
      request.log.debug({ detail: 1 }, 'below the level');
      return { ok: true };
    });
    app.get('/loud', async (request) => {
      request.log.warn({ prompt: 'a secret cat' }, 'something to say');
      return { ok: true };
    });
    try {
      await app.ready();
      const child = vi.spyOn(logger, 'child');
      expect((await app.inject({ method: 'GET', url: '/quiet' })).statusCode).toBe(200);
      expect(child).not.toHaveBeenCalled();
      const loud = await app.inject({ method: 'GET', url: '/loud', headers: { 'x-request-id': 'r-1' } });
      expect(loud.statusCode).toBe(200);
      expect(child).toHaveBeenCalledTimes(1);
      const line = lines.find((l) => l.msg === 'something to say');
      expect(line).toMatchObject({ level: 'warn', service: 'gateway-test', reqId: expect.any(String), prompt: '[redacted]' });
      expect(lines.some((l) => l.msg === 'below the level')).toBe(false);
    } finally {
      await app.close();
    }
  });

  it('reports the level of the logger it stands for, and its own once changed', () => {
    const { logger } = capturedLogger('warn');
    const requestLogger = lazyRequestLoggers.call(
      undefined as never,
      logger as unknown as FastifyBaseLogger,
      { reqId: 'r-2' },
      {},
      undefined as never,
    );
    expect(requestLogger.level).toBe('warn');
    requestLogger.level = 'debug';
    expect(requestLogger.level).toBe('debug');
    expect(logger.level).toBe('warn');
  });
});

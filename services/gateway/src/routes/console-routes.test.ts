import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '@atelier/logging';
import type { GatewayContext } from '../gateway-context.js';
import { buildGateway } from '../server.js';
import { CONSOLE_CSP } from './console-routes.js';

let folder: string;
const gateways: FastifyInstance[] = [];

const gateway = async (consoleDir: string | undefined) => {
  const app = await buildGateway({
    peers: {} as GatewayContext['peers'],
    tokens: {} as GatewayContext['tokens'],
    logger: createLogger({ service: 'gateway-test', level: 'silent' }),
    upstreamDeadlineMs: 1000,
    sseKeepAliveMs: 1000,
    sseMaxStreamsPerUser: 1,
    peerHealth: async () => ({}),
    consoleDir,
  });
  gateways.push(app);
  return app;
};

beforeAll(() => {
  folder = mkdtempSync(path.join(tmpdir(), 'atelier-console-'));
  mkdirSync(path.join(folder, 'assets'));
  writeFileSync(path.join(folder, 'index.html'), '<!doctype html><script type="module" src="/console/assets/index-abc.js"></script>');
  writeFileSync(path.join(folder, 'assets/index-abc.js'), 'console.log(1)');
});

afterAll(async () => {
  await Promise.all(gateways.map((app) => app.close()));
  rmSync(folder, { recursive: true, force: true });
});

describe('gateway http - the console at /console', () => {
  it('serves the page and its assets without a token, under a CSP that allows only its own scripts', async () => {
    const app = await gateway(folder);
    const page = await app.inject({ method: 'GET', url: '/console/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toContain('/console/assets/index-abc.js');
    expect(page.headers['content-security-policy']).toBe(CONSOLE_CSP);
    expect(CONSOLE_CSP).toContain("script-src 'self'");
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['cache-control']).toBe('no-cache');
    const script = await app.inject({ method: 'GET', url: '/console/assets/index-abc.js' });
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toMatch(/javascript/);
    expect(script.body).toBe('console.log(1)');
  });

  it('redirects /console to /console/, and answers the API 404 for a file the build does not hold', async () => {
    const app = await gateway(folder);
    const bare = await app.inject({ method: 'GET', url: '/console' });
    expect(bare.statusCode).toBe(301);
    expect(bare.headers.location).toBe('/console/');
    const missing = await app.inject({ method: 'GET', url: '/console/assets/nothing.js' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error).toMatchObject({ code: 40400, name: 'NOT_FOUND' });
    const escape = await app.inject({ method: 'GET', url: '/console/..%2f..%2fetc%2fpasswd' });
    expect(escape.statusCode).toBe(404);
  });

  it('says how to build the console when the gateway has none', async () => {
    for (const consoleDir of [undefined, path.join(folder, 'assets')]) {
      const app = await gateway(consoleDir);
      const answer = await app.inject({ method: 'GET', url: '/console/' });
      expect(answer.statusCode).toBe(404);
      expect(answer.json().error.message).toContain('npm run build:console');
    }
  });
});

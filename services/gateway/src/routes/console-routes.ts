import { existsSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from '../http/http-error.js';

/**
 * What the console's pages may load: its own scripts, styles and API calls, nothing inline and no
 * other origin (the admin token in its session storage is then out of reach of injected script).
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const CONSOLE_HEADERS = {
  'content-security-policy': CONSOLE_CSP,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};

/** Headers of the inner answer that describe its transport, not its content: Fastify sets its own. */
const TRANSPORT_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'date']);

/**
 * `/console`: the operators' console (apps/console), a static build in `consoleDir` served without a
 * token — the page holds none; its API calls carry the operator's. As for /docs, @fastify/static
 * loads on the first request, in a Fastify instance of its own asked through `inject`, so a gateway
 * nobody opens the console on keeps its idle memory.
 */
export function registerConsoleRoutes(app: FastifyInstance, consoleDir: string | undefined): void {
  let inner: Promise<FastifyInstance> | undefined;
  const build = async () => {
    const [{ default: Fastify }, { default: fastifyStatic }] = await Promise.all([import('fastify'), import('@fastify/static')]);
    const server = Fastify();
    await server.register(fastifyStatic, { root: path.resolve(consoleDir!), prefix: '/console/', index: 'index.html', maxAge: 0 });
    await server.ready();
    return server;
  };
  const forward = async (request: FastifyRequest, reply: FastifyReply) => {
    if (!consoleDir || !existsSync(path.join(consoleDir, 'index.html'))) {
      const where = consoleDir ? ` (now ${consoleDir}, which holds no index.html)` : '';
      throw new HttpError(
        'NOT_FOUND',
        `the console is not built into this gateway: npm run build:console, and CONSOLE_DIR set to its folder${where}`,
      );
    }
    inner ??= build().catch((error: unknown) => {
      inner = undefined;
      throw error;
    });
    const answer = await (await inner).inject({ method: request.method as 'GET', url: request.url, headers: request.headers });
    if (answer.statusCode === 404) return reply.callNotFound();
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value !== undefined && !TRANSPORT_HEADERS.has(name)) void reply.header(name, value);
    }
    // The page's file names carry a content hash; index.html does not and must never be stale.
    if (!request.url.includes('/assets/')) void reply.header('cache-control', 'no-cache');
    return reply.code(answer.statusCode).headers(CONSOLE_HEADERS).send(answer.rawPayload);
  };
  app.get('/console', { schema: { hide: true } }, (_request, reply) => reply.redirect('/console/', 301));
  app.get('/console/', { schema: { hide: true } }, forward);
  app.get('/console/*', { schema: { hide: true } }, forward);
}

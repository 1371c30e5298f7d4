import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Headers of the inner answer that describe its transport, not its content: Fastify sets its own. */
const TRANSPORT_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'date']);

/**
 * `/docs`: the Swagger UI of the API, in a Fastify instance of its own built on the first request
 * (from `app.swagger()`, the document /openapi.json serves) and asked through `inject`. Loaded at
 * start-up, @fastify/swagger-ui, @fastify/static and their dependencies took about 3 MB of every
 * replica's idle memory for a page operators open now and then.
 */
export function registerDocsRoutes(app: FastifyInstance): void {
  let docs: Promise<FastifyInstance> | undefined;
  const build = async () => {
    const [{ default: Fastify }, { default: swagger }, { default: swaggerUi }] = await Promise.all([
      import('fastify'),
      import('@fastify/swagger'),
      import('@fastify/swagger-ui'),
    ]);
    const inner = Fastify();
    await inner.register(swagger, { mode: 'static', specification: { document: app.swagger() as never } });
    await inner.register(swaggerUi, { routePrefix: '/docs' });
    await inner.ready();
    return inner;
  };
  const forward = async (request: FastifyRequest, reply: FastifyReply) => {
    docs ??= build().catch((error: unknown) => {
      docs = undefined;
      throw error;
    });
    const answer = await (await docs).inject({ method: request.method as 'GET', url: request.url, headers: request.headers });
    // Not a page of the UI: the API's own 404.
    if (answer.statusCode === 404) return reply.callNotFound();
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value !== undefined && !TRANSPORT_HEADERS.has(name)) void reply.header(name, value);
    }
    return reply.code(answer.statusCode).send(answer.rawPayload);
  };
  app.get('/docs', { schema: { hide: true } }, forward);
  app.get('/docs/*', { schema: { hide: true } }, forward);
}

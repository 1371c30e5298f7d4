import { randomUUID } from 'node:crypto';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import { isAppError } from '@atelier/errors';
import swagger from '@fastify/swagger';
import { authenticate } from './auth/authenticate.js';
import { requireRouteRole } from './auth/admin-route-roles.js';
import type { GatewayContext } from './gateway-context.js';
import { ApiError } from './http/error-codes.js';
import { HttpMetrics } from './http/http-metrics.js';
import { HttpError, toHttpError } from './http/http-error.js';
import { clipped, findInputProblem } from './http/input-rules.js';
import { localizedErrorMessage } from './i18n/localize-messages.js';
import { localeOf, negotiateLanguage } from './i18n/request-locale.js';
import { withLanguageHeaders } from './i18n/openapi-languages.js';
import { lazyRequestLoggers } from './http/lazy-request-logger.js';
import { schemaCompilers } from './http/lazy-schema-compilers.js';
import { authenticateWithinLimits, limitUnauthenticatedRoutes } from './rate-limit/rate-limit-hooks.js';
import { sharedSchemas } from './http/schemas.js';
import { registerAdminOverviewRoute } from './routes/admin-overview-route.js';
import { registerAdminSpendRoutes } from './routes/admin-spend-routes.js';
import { registerAdminReconciliationRoutes } from './routes/admin-reconciliation-routes.js';
import { registerAdminRoutes } from './routes/admin-routes.js';
import { registerAdminMeRoute } from './routes/admin-me-route.js';
import { registerAdminAuditRoute } from './routes/admin-audit-route.js';
import { registerAdminCatalogRoutes } from './routes/admin-catalog-routes.js';
import { registerAdminProviderGatesRoutes } from './routes/admin-provider-gates-routes.js';
import { registerCatalogRoutes } from './routes/catalog-routes.js';
import { registerConsoleRoutes } from './routes/console-routes.js';
import { registerDocsRoutes } from './routes/docs-routes.js';
import { registerJobEventsRoute } from './routes/job-events-route.js';
import { registerJobRoutes } from './routes/job-routes.js';
import { FinishedJobCache } from './routes/finished-job-cache.js';
import { QueuedJobViews } from './routes/queued-job-views.js';
import { registerAssetGalleryRoutes } from './routes/asset-gallery-routes.js';
import { registerMediaRoutes } from './routes/media-routes.js';
import { OutputLinks } from './routes/output-links.js';
import { registerOpsRoutes } from './routes/ops-routes.js';
import { registerPostRoutes } from './routes/post-routes.js';
import { registerQuotaRoute } from './routes/quota-route.js';
import { registerAccountRoutes } from './routes/account-routes.js';
import { registerStylePreviewRoute } from './routes/style-preview-route.js';
import { registerWebhookRoutes } from './routes/webhook-routes.js';
import { registerProviderCredentialRoutes } from './routes/provider-credential-routes.js';
import { applyOpenApiConventions } from './http/openapi-conventions.js';
import { API_EXAMPLES } from './routes/api-examples.js';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,100}$/;

/** "body.prompt must NOT have more than 10000 characters", or the unknown field by name. */
function validationMessage(error: FastifyError): string {
  const first = error.validation?.[0];
  if (!first) return error.message;
  const where = clipped(`${error.validationContext ?? 'request'}${first.instancePath.replaceAll('/', '.')}`);
  if (first.keyword === 'additionalProperties')
    return `${where} has an unknown field "${clipped(String(first.params.additionalProperty))}"`;
  if (first.keyword === 'required') return `${where}.${String(first.params.missingProperty)} is required`;
  return `${where} ${first.message ?? 'is invalid'}`;
}

/** An error answer in the API's one shape. Only the message is localized: code and name are the contract the app switches on. */
function sendError(request: FastifyRequest, reply: FastifyReply, http: HttpError): void {
  const { status, code } = ApiError[http.apiError];
  const message = localizedErrorMessage({ apiError: http.apiError, ...http.source, message: http.message }, localeOf(request));
  void reply
    .code(status)
    .headers(http.headers)
    .send({ error: { code, name: http.apiError, message, ...http.details, requestId: String(request.id) } });
}

function classifyError(error: FastifyError): { http: HttpError; unexpected: boolean } {
  if (error.validation !== undefined) return { http: new HttpError('BAD_REQUEST', validationMessage(error)), unexpected: false };
  if (error instanceof HttpError || isAppError(error)) return toHttpError(error);
  // Fastify's own refusals of what the client sent: malformed JSON, unsupported media type, too
  // large. Their messages may quote what was sent (a content type of kilobytes): clipped.
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    return { http: new HttpError('BAD_REQUEST', clipped(error.message)), unexpected: false };
  }
  return toHttpError(error);
}

/** The longest path parameter the router accepts (find-my-way's default): longer than every id and code. */
const MAX_PATH_PARAMETER_LENGTH = 100;

/** What a client is told when the router refuses a path before any route sees it, by Fastify's error code. */
const FRAMEWORK_REFUSALS: Readonly<Record<string, string>> = {
  FST_ERR_BAD_URL: 'the URL path is not valid percent-encoded UTF-8',
  FST_ERR_MAX_PARAM_LENGTH: `a path parameter is longer than ${MAX_PATH_PARAMETER_LENGTH} characters`,
};

/**
 * The mobile API: Fastify with schema-validated requests, bearer-JWT auth on /api/v1 and the
 * admin role on /admin-api, one error shape with a request id, OpenAPI at /openapi.json and /docs.
 */
export async function buildGateway(context: GatewayContext, options: { eagerSchemas?: boolean } = {}): Promise<FastifyInstance> {
  const metrics = context.metrics ?? new HttpMetrics();
  const app = Fastify({
    loggerInstance: context.logger as unknown as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: lazyRequestLoggers,
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    schemaController: { compilersFactory: schemaCompilers({ eager: options.eagerSchemas }) },
    ajv: { customOptions: { removeAdditional: false, coerceTypes: 'array', useDefaults: true, allErrors: false } },
    bodyLimit: 1024 * 1024,
    maxParamLength: MAX_PATH_PARAMETER_LENGTH,
    // request.ip is the rate limit's client address: behind N proxies, the Nth address from the right of X-Forwarded-For.
    trustProxy: (_address: string, hop: number) => hop < (context.trustedProxyHops ?? 0),
    // A path that cannot be decoded (bad percent-encoding) or whose parameter is longer than any id
    // is refused before any route or hook: answered in the API's error shape, not Fastify's own,
    // and never with Fastify's message, which quotes the whole path back.
    frameworkErrors: (error, request, reply) => {
      sendError(request, reply, new HttpError('BAD_REQUEST', FRAMEWORK_REFUSALS[error.code] ?? 'the URL path cannot be routed'));
    },
  });

  // Many clients send `Content-Type: application/json` on every POST, even without a body (cancel,
  // complete, draft): an empty body is no body, not a 400. Anything else goes through Fastify's
  // own parser (which refuses prototype poisoning).
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '') return done(null, undefined);
    return parseJson(request, body as string, done);
  });

  for (const schema of sharedSchemas) app.addSchema(schema);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Atelier API',
        version: '1.0.0',
        description:
          'The mobile API of Atelier. Errors are {"error":{"code","name","message","requestId"}}; code = HTTP status × 100 + a sequence, never renumbered. ' +
          'Messages (errors, job errors) and catalog names follow Accept-Language (en, zh-CN); code and name never do.',
      },
      tags: [
        {
          name: 'creation',
          description:
            'AI creation: the model and style catalog, generation jobs submitted, read, followed and cancelled (asynchronous, queued), the one-tap draft',
        },
        { name: 'media', description: 'Images: presigned uploads, assets and their download URLs, the gallery' },
        { name: 'community', description: 'Posts and the feed' },
        { name: 'account', description: "The caller's account: quota, export, deletion" },
        { name: 'webhooks', description: "Integrators' callbacks: endpoints, deliveries, replays" },
        { name: 'operators', description: 'The operators’ API (/admin-api, role admin)' },
      ],
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
      security: [{ bearer: [] }],
    },
    refResolver: { buildLocalReference: (json) => String(json.$id) },
    transformObject: (document) =>
      withLanguageHeaders(
        applyOpenApiConventions('openapiObject' in document ? document.openapiObject : document.swaggerObject, API_EXAMPLES),
      ),
  });

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  app.addHook('onRequest', negotiateLanguage);
  // Before the schemas and long before any service: NUL, control characters, lone surrogates,
  // non-finite numbers or runaway nesting anywhere in what the client sent are its mistake.
  app.addHook('preValidation', async (request) => {
    const problem =
      findInputProblem(request.params, 'params') ??
      findInputProblem(request.query, 'querystring') ??
      findInputProblem(request.body, 'body');
    if (problem) throw new HttpError('BAD_REQUEST', problem);
  });
  // Ajv coerces "Infinity" or "1e400" in a query string to Infinity and then lets it past
  // minimum/maximum: look again at the coerced values.
  app.addHook('preHandler', async (request) => {
    const problem = findInputProblem(request.query, 'querystring');
    if (problem) throw new HttpError('BAD_REQUEST', problem);
  });
  if (context.rateLimiter) app.addHook('onRequest', limitUnauthenticatedRoutes(context.rateLimiter));
  app.addHook('onResponse', async (request, reply) => {
    metrics.requestDuration.observe(
      { method: request.method, route: request.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const { http, unexpected } = classifyError(error);
    if (unexpected) request.log.error({ err: error, url: request.url }, 'request failed unexpectedly');
    sendError(request, reply, http);
  });
  app.setNotFoundHandler((request, reply) => {
    void reply.code(404).send({
      error: {
        code: ApiError.NOT_FOUND.code,
        name: 'NOT_FOUND',
        message: localizedErrorMessage(
          { apiError: 'NOT_FOUND', message: `no route ${request.method} ${clipped(request.url.split('?')[0]!)}` },
          localeOf(request),
        ),
        requestId: String(request.id),
      },
    });
  });

  registerOpsRoutes(app, context, metrics);
  registerDocsRoutes(app);
  registerConsoleRoutes(app, context.consoleDir);
  registerStylePreviewRoute(app, context);
  const outputLinks = new OutputLinks(context.peers.media);
  const finishedJobs = new FinishedJobCache(context.peers.media, metrics.jobViewCache, outputLinks);
  const queuedJobs = new QueuedJobViews(
    (jobId, userId, afterVersion, signal) => context.peers.jobs.watchJob({ jobId, userId, afterVersion }, { signal }),
    { freshMs: context.queuedViewFreshMs ?? 0, lookups: metrics.queuedJobViews },
  );
  metrics.followedQueuedJobs = () => queuedJobs.size;
  app.addHook('onClose', async () => queuedJobs.close());
  const authenticated = context.rateLimiter
    ? authenticateWithinLimits(authenticate(context.tokens), context.rateLimiter)
    : authenticate(context.tokens);
  await app.register(async (api) => {
    api.addHook('onRequest', authenticated);
    registerCatalogRoutes(api, context);
    registerMediaRoutes(api, context);
    registerAssetGalleryRoutes(api, context, outputLinks);
    registerJobRoutes(api, context, finishedJobs, queuedJobs);
    registerJobEventsRoute(api, context, finishedJobs);
    registerQuotaRoute(api, context);
    registerAccountRoutes(api, context);
    registerPostRoutes(api, context);
    registerWebhookRoutes(api, context);
    registerProviderCredentialRoutes(api, context);
  });
  await app.register(async (admin) => {
    admin.addHook('onRequest', authenticated);
    admin.addHook('onRequest', requireRouteRole);
    registerAdminMeRoute(admin);
    registerAdminRoutes(admin, context);
    registerAdminCatalogRoutes(admin, context);
    registerAdminProviderGatesRoutes(admin, context);
    registerAdminOverviewRoute(admin, context);
    registerAdminSpendRoutes(admin, context);
    registerAdminReconciliationRoutes(admin, context);
    registerAdminAuditRoute(admin, context);
  });
  return app;
}

import { generateKeyPair, exportSPKI, SignJWT } from 'jose';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogV1, commonV1, jobsV1 } from '@atelier/contracts';
import { NotFoundError, ResourceExhaustedError } from '@atelier/errors';
import { createLogger } from '@atelier/logging';
import type { FastifyInstance } from 'fastify';
import { buildGateway } from './server.js';
import { createTokenVerifier } from './auth/token-verifier.js';
import type { GatewayPeers } from './gateway-context.js';

// Unit tests of the HTTP layer with fakes of the peer services; the real services are exercised
// end to end in gateway.e2e.test.ts.
let app: FastifyInstance;
let userToken: string;
let adminToken: string;
let foreignToken: string;
let tokens: Awaited<ReturnType<typeof createTokenVerifier>>;
const created: jobsV1.CreateJobRequest[] = [];

const job = jobsV1.Job.fromPartial({
  id: '019a0000-0000-7000-8000-0000000000aa',
  userId: 'alice',
  jobType: 'image.stylize',
  status: jobsV1.JobStatus.QUEUED,
  queue: jobsV1.JobQueue.INTERACTIVE,
  queuePosition: 3,
  attemptCount: 0,
  maxAttempts: 3,
  createdAt: new Date('2026-11-30T00:00:00Z'),
  updatedAt: new Date('2026-11-30T00:00:00Z'),
  nextAttemptAt: new Date('2026-11-30T00:00:00Z'),
  parameters: { strength: 0.5 },
  timings: { queuedMs: 5, runningMs: 0, totalMs: 5, attempts: [] },
  version: 1,
});

const failedJob = jobsV1.Job.fromPartial({
  ...job,
  id: '019a0000-0000-7000-8000-0000000000ab',
  status: jobsV1.JobStatus.FAILED,
  queuePosition: undefined,
  attemptCount: 3,
  errorCode: 'PROVIDER_PREDICTION_FAILED',
  errorMessage: 'The image service could not make this image.',
});

const peers = {
  catalog: {
    getCatalog: async () => ({
      models: [
        catalogV1.Model.fromPartial({
          id: '019a0000-0000-7000-8000-000000000001',
          code: 'm',
          displayName: 'M',
          displayNameI18n: { 'zh-CN': '模型' },
          mediaKind: commonV1.MediaKind.IMAGE,
          jobType: 'image.stylize',
          defaultParameters: {},
        }),
      ],
      styles: [],
    }),
  },
  jobs: {
    createJob: async (request: jobsV1.CreateJobRequest) => {
      created.push(request);
      if (request.idempotencyKey === 'over-quota')
        throw new ResourceExhaustedError('GENERATION_QUOTA_EXCEEDED', 'daily limit of 20 generations reached', 3600, {
          params: { variant: 'daily', limit: 20 },
        });
      return { job, created: request.idempotencyKey !== 'replay' };
    },
    getJob: async (request: jobsV1.GetJobRequest) => {
      if (request.userId !== 'alice') throw new NotFoundError('job');
      if (request.jobId === failedJob.id) return { job: failedJob };
      return { job };
    },
  },
  community: {
    createDraftFromJob: async () => {
      throw new NotFoundError('job');
    },
  },
} as unknown as GatewayPeers;

beforeAll(async () => {
  const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
  const sign = (sub: string, roles: string[] = [], audience = 'atelier-app') =>
    new SignJWT({ roles })
      .setProtectedHeader({ alg: 'EdDSA' })
      .setSubject(sub)
      .setIssuer('test-issuer')
      .setAudience(audience)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(privateKey);
  userToken = await sign('alice');
  adminToken = await sign('ops', ['admin']);
  foreignToken = await sign('alice', [], 'someone-else');
  tokens = await createTokenVerifier({ publicKeyPem: await exportSPKI(publicKey), issuer: 'test-issuer', audience: 'atelier-app' });
  app = await buildGateway({
    peers,
    tokens,
    logger: createLogger({ service: 'gateway-test', level: 'silent' }),
    upstreamDeadlineMs: 1000,
    sseKeepAliveMs: 1000,
    sseMaxStreamsPerUser: 5,
    peerHealth: async () => ({ catalog: 'SERVING', media: 'SERVING', jobs: 'SERVING', community: 'SERVING' }),
  });
});

afterAll(async () => {
  await app?.close();
});

const auth = (token = userToken) => ({ authorization: `Bearer ${token}` });
const jobBody = {
  jobType: 'image.stylize',
  modelId: '019a0000-0000-7000-8000-000000000001',
  inputAssetId: '019a0000-0000-7000-8000-000000000002',
  prompt: 'a cat',
};

describe('gateway http - languages (Accept-Language)', () => {
  it('answers every response with Content-Language and Vary: Accept-Language, English by default and for a bad header', async () => {
    for (const [given, expected] of [
      [undefined, 'en'],
      ['zh-CN', 'zh-CN'],
      ['fr;q=1, zh-Hans;q=0.5', 'zh-CN'],
      ['zh;q=oops', 'en'],
      ['\u00ff\u00fe', 'en'],
    ] as const) {
      const headers = given === undefined ? auth() : { ...auth(), 'accept-language': given };
      const response = await app.inject({ method: 'GET', url: '/api/v1/creation/catalog', headers });
      expect(response.statusCode, String(given)).toBe(200);
      expect(response.headers['content-language'], String(given)).toBe(expected);
      expect(response.headers.vary).toContain('Accept-Language');
      expect(response.json().models[0].displayName, String(given)).toBe(expected === 'en' ? 'M' : '模型');
    }
  });

  it('localizes only the message of an error: code and name stay, the English detail is quoted', async () => {
    const zh = { ...auth(), 'accept-language': 'zh-CN' };
    const refused = await app.inject({ method: 'GET', url: '/api/v1/creation/jobs/123', headers: zh });
    expect(refused.statusCode).toBe(400);
    expect(refused.headers['content-language']).toBe('zh-CN');
    expect(refused.json().error).toMatchObject({
      code: 40000,
      name: 'BAD_REQUEST',
      message: '请求无效：params.jobId must match format "uuid"',
    });
    const noRoute = await app.inject({ method: 'GET', url: '/api/v1/nowhere', headers: zh });
    expect(noRoute.json().error).toMatchObject({ code: 40400, message: '未找到：no route GET /api/v1/nowhere' });
  });

  it("renders a service's quota refusal from its reason and params, with the same code and Retry-After", async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/creation/jobs',
      headers: { ...auth(), 'idempotency-key': 'over-quota', 'accept-language': 'zh-CN,en;q=0.5' },
      payload: jobBody,
    });
    expect(response.statusCode).toBe(429);
    expect(response.headers['retry-after']).toBe('3600');
    expect(response.json().error).toMatchObject({
      code: 42900,
      name: 'GENERATION_QUOTA_EXCEEDED',
      message: '今日 20 次生成额度已用完，将于 UTC 时间 00:00 重置',
    });
  });

  it('documents Accept-Language on every operation and Content-Language on every response', async () => {
    const document = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(document.components.parameters.AcceptLanguage).toMatchObject({ name: 'Accept-Language', in: 'header', required: false });
    const operations = Object.values(
      document.paths as Record<string, Record<string, { parameters?: object[]; responses: object }>>,
    ).flatMap((item) => Object.values(item));
    expect(operations.length).toBeGreaterThan(20);
    for (const operation of operations) {
      expect(operation.parameters).toContainEqual({ $ref: '#/components/parameters/AcceptLanguage' });
      for (const given of Object.values(operation.responses as Record<string, { $ref?: string; headers?: object }>)) {
        // Error answers are shared responses (#/components/responses/…): the header is on those.
        const response = given.$ref ? document.components.responses[given.$ref.split('/').at(-1)!] : given;
        expect(response.headers).toMatchObject({ 'Content-Language': { $ref: '#/components/headers/ContentLanguage' } });
      }
    }
  });

  it("localizes a job's error message, keeping its code", async () => {
    const url = `/api/v1/creation/jobs/${failedJob.id}`;
    const zh = await app.inject({ method: 'GET', url, headers: { ...auth(), 'accept-language': 'zh' } });
    expect(zh.json().job.error).toEqual({ code: 'PROVIDER_PREDICTION_FAILED', message: '图像服务未能生成这张图片。' });
    const en = await app.inject({ method: 'GET', url, headers: auth() });
    expect(en.json().job.error).toEqual({ code: 'PROVIDER_PREDICTION_FAILED', message: 'The image service could not make this image.' });
  });
});

describe('gateway http - authentication', () => {
  it('answers 401/40101 without a token, with a malformed one, and with a token for another audience', async () => {
    for (const headers of [{}, { authorization: 'Bearer nope' }, { authorization: 'Basic abc' }, auth(foreignToken)]) {
      const response = await app.inject({ method: 'GET', url: '/api/v1/creation/catalog', headers });
      expect(response.statusCode).toBe(401);
      expect(response.json().error).toMatchObject({ code: 40101, name: 'UNAUTHENTICATED' });
    }
  });

  it('answers 403/40301 on operator routes without the admin role, and lets admins through the auth layer', async () => {
    const refused = await app.inject({ method: 'GET', url: '/admin-api/outbox/dead', headers: auth() });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error).toMatchObject({ code: 40301, name: 'FORBIDDEN' });
    const canary = await app.inject({
      method: 'POST',
      url: '/api/v1/creation/jobs',
      headers: { ...auth(), 'idempotency-key': 'c' },
      payload: { jobType: 'system.canary' },
    });
    expect(canary.statusCode).toBe(403);
  });
});

describe('gateway http - request validation', () => {
  it.each([
    ['an unknown field', { ...jobBody, colour: 'red' }, 'body has an unknown field "colour"'],
    ['a wrong type', { ...jobBody, width: 'wide' }, 'body.width must be integer'],
    ['an oversize string', { ...jobBody, prompt: 'x'.repeat(10_001) }, 'body.prompt must NOT have more than 10000 characters'],
    ['a malformed UUID', { ...jobBody, modelId: 'not-a-uuid' }, 'body.modelId must match format "uuid"'],
    ['a missing field', { prompt: 'x' }, 'body.jobType is required'],
  ])('answers 400/40000 naming the field for %s, and calls no service', async (_case, payload, message) => {
    const before = created.length;
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/creation/jobs',
      headers: { ...auth(), 'idempotency-key': 'k1' },
      payload,
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({ code: 40000, name: 'BAD_REQUEST', message });
    expect(created.length).toBe(before);
  });

  it('requires an Idempotency-Key on creates', async () => {
    const response = await app.inject({ method: 'POST', url: '/api/v1/creation/jobs', headers: auth(), payload: jobBody });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.message).toContain('idempotency-key');
  });

  it('refuses a malformed id in the path and a bad query parameter', async () => {
    expect((await app.inject({ method: 'GET', url: '/api/v1/creation/jobs/123', headers: auth() })).json().error).toMatchObject({
      code: 40000,
      message: 'params.jobId must match format "uuid"',
    });
    expect((await app.inject({ method: 'GET', url: '/api/v1/creation/catalog?mediaKind=video', headers: auth() })).statusCode).toBe(400);
    expect((await app.inject({ method: 'GET', url: '/api/v1/creation/jobs?limit=1000', headers: auth() })).json().error.message).toBe(
      'querystring.limit must be <= 100',
    );
  });

  it('takes an empty body sent as JSON as no body', async () => {
    const response = await app.inject({
      method: 'GET',
      url: `/api/v1/creation/jobs/${job.id}`,
      headers: { ...auth(), 'content-type': 'application/json' },
      payload: '',
    });
    expect(response.statusCode).toBe(200);
  });

  it('refuses malformed JSON as 400, not 500', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/creation/jobs',
      headers: { ...auth(), 'idempotency-key': 'k', 'content-type': 'application/json' },
      payload: '{"jobType":',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe(40000);
  });
});

describe('gateway http - answers', () => {
  it('answers 201 for a new job and 200 for a replay, translating the body', async () => {
    const first = await app.inject({
      method: 'POST',
      url: '/api/v1/creation/jobs',
      headers: { ...auth(), 'idempotency-key': 'new' },
      payload: jobBody,
    });
    expect(first.statusCode).toBe(201);
    expect(first.json().job).toMatchObject({
      id: job.id,
      status: 'queued',
      queuePosition: 3,
      attempts: { count: 0, max: 3 },
      outputUrl: null,
    });
    expect(created.at(-1)).toMatchObject({ userId: 'alice', idempotencyKey: 'new', jobType: 'image.stylize', prompt: 'a cat' });
    const replay = await app.inject({
      method: 'POST',
      url: '/api/v1/creation/jobs',
      headers: { ...auth(), 'idempotency-key': 'replay' },
      payload: jobBody,
    });
    expect(replay.statusCode).toBe(200);
  });

  it('answers 429/42900 with Retry-After over quota', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/creation/jobs',
      headers: { ...auth(), 'idempotency-key': 'over-quota' },
      payload: jobBody,
    });
    expect(response.statusCode).toBe(429);
    expect(response.headers['retry-after']).toBe('3600');
    expect(response.json().error).toMatchObject({
      code: 42900,
      name: 'GENERATION_QUOTA_EXCEEDED',
      message: 'daily limit of 20 generations reached',
    });
  });

  it('puts a request id on every answer and in error bodies, keeping a well-formed one from the client', async () => {
    const generated = await app.inject({ method: 'GET', url: '/api/v1/creation/catalog', headers: auth() });
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const given = await app.inject({
      method: 'GET',
      url: '/api/v1/creation/jobs/019a0000-0000-7000-8000-0000000000bb',
      headers: { ...auth(adminToken), 'x-request-id': 'req-123' },
    });
    expect(given.headers['x-request-id']).toBe('req-123');
    expect(given.json().error).toMatchObject({ code: 40407, name: 'JOB_NOT_FOUND', requestId: 'req-123' });
    const unknown = await app.inject({ method: 'GET', url: '/api/v1/nothing-here', headers: auth() });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.requestId).toBe(unknown.headers['x-request-id']);
  });
});

describe('gateway http - OpenAPI', () => {
  const routes = [
    ['get', '/api/v1/creation/catalog'],
    ['post', '/api/v1/media/uploads'],
    ['post', '/api/v1/media/uploads/{assetId}/complete'],
    ['get', '/api/v1/media/assets/{assetId}'],
    ['post', '/api/v1/creation/jobs'],
    ['get', '/api/v1/creation/jobs'],
    ['get', '/api/v1/creation/jobs/{jobId}'],
    ['post', '/api/v1/creation/jobs/{jobId}/cancel'],
    ['get', '/api/v1/creation/jobs/{jobId}/events'],
    ['post', '/api/v1/creation/jobs/{jobId}/draft'],
    ['post', '/api/v1/posts'],
    ['patch', '/api/v1/posts/{postId}'],
    ['get', '/api/v1/posts/{postId}'],
    ['get', '/api/v1/feed'],
    ['get', '/admin-api/jobs'],
    ['post', '/admin-api/jobs/{jobId}/retry'],
    ['get', '/admin-api/outbox/dead'],
    ['post', '/admin-api/outbox/{id}/replay'],
  ] as const;

  it('documents every route of SPEC §8 as OpenAPI 3.1, browsable at /docs', async () => {
    const spec = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(spec.openapi).toBe('3.1.0');
    for (const [method, path] of routes) expect(spec.paths[path]?.[method], `${method} ${path}`).toBeDefined();
    expect((await app.inject({ method: 'GET', url: '/docs/' })).statusCode).toBe(200);
  });

  it('serves the Swagger UI at /docs (built on first use): its page, assets and document, and the API 404 for anything else', async () => {
    const page = await app.inject({ method: 'GET', url: '/docs/' });
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.body).toContain('swagger-ui');
    const css = await app.inject({ method: 'GET', url: '/docs/static/swagger-ui.css' });
    expect(css.statusCode).toBe(200);
    expect(css.headers['content-type']).toContain('text/css');
    const document = await app.inject({ method: 'GET', url: '/docs/json' });
    expect(document.json()).toEqual((await app.inject({ method: 'GET', url: '/openapi.json' })).json());
    const missing = await app.inject({ method: 'GET', url: '/docs/static/nothing-here.js' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error).toMatchObject({ code: 40400, name: 'NOT_FOUND', requestId: missing.headers['x-request-id'] });
  });

  it('answers with bodies that match their documented schemas', async () => {
    const spec = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const ajv = new Ajv2020.default({ strict: false });
    addFormats.default(ajv as never);
    for (const [name, schema] of Object.entries(spec.components.schemas)) ajv.addSchema(schema as object, `#/components/schemas/${name}`);
    const check = async (method: 'get' | 'post', path: string, url: string, status: number, extra: object = {}) => {
      const response = await app.inject({
        method: method.toUpperCase() as 'GET' | 'POST',
        url,
        headers: { ...auth(), 'idempotency-key': 'schema' },
        ...extra,
      });
      expect(response.statusCode).toBe(status);
      const schema = spec.paths[path][method].responses[String(status)].content['application/json'].schema;
      const validate = ajv.compile(schema);
      expect(validate(response.json()), JSON.stringify(validate.errors)).toBe(true);
    };
    await check('get', '/api/v1/creation/catalog', '/api/v1/creation/catalog', 200);
    await check('post', '/api/v1/creation/jobs', '/api/v1/creation/jobs', 201, { payload: jobBody });
    await check('get', '/api/v1/creation/jobs/{jobId}', `/api/v1/creation/jobs/${job.id}`, 200);
    await check('get', '/api/v1/creation/jobs/{jobId}', '/api/v1/creation/jobs/019a0000-0000-7000-8000-0000000000cc', 200);
  });
});

describe('gateway http - schemas', () => {
  it('compiles every route schema at start-up when asked to: the lazily compiled ones cannot fail on a first request', async () => {
    const eager = await buildGateway(
      {
        peers,
        tokens,
        logger: createLogger({ service: 'gateway-test', level: 'silent' }),
        upstreamDeadlineMs: 1000,
        sseKeepAliveMs: 1000,
        sseMaxStreamsPerUser: 5,
        peerHealth: async () => ({}),
      },
      { eagerSchemas: true },
    );
    try {
      await expect(eager.ready()).resolves.toBe(eager);
      const response = await eager.inject({ method: 'GET', url: `/api/v1/creation/jobs/${job.id}`, headers: auth() });
      const lazy = await app.inject({ method: 'GET', url: `/api/v1/creation/jobs/${job.id}`, headers: auth() });
      expect(response.statusCode).toBe(200);
      expect(response.body).toBe(lazy.body);
    } finally {
      await eager.close();
    }
  });
});

describe('gateway http - refusals of what no route could read', () => {
  it('answers a path that is not valid percent-encoded UTF-8 with 400/40000 in the API error shape', async () => {
    const answer = await app.inject({ method: 'GET', url: '/api/v1/creation/jobs/%FF%FE', headers: auth() });
    expect(answer.statusCode).toBe(400);
    expect(answer.json().error).toMatchObject({ code: 40000, name: 'BAD_REQUEST', message: expect.stringMatching(/percent-encoded/) });
  });

  it('answers a path parameter longer than any id with 400/40000 that does not quote the path back', async () => {
    const answer = await app.inject({ method: 'GET', url: `/api/v1/creation/jobs/${'x'.repeat(20_000)}`, headers: auth() });
    expect(answer.statusCode).toBe(400);
    expect(answer.json().error).toMatchObject({
      code: 40000,
      name: 'BAD_REQUEST',
      message: 'a path parameter is longer than 100 characters',
    });
    expect(answer.body.length).toBeLessThan(500);
  });

  it('quotes an unknown field of a megabyte by its first 100 characters', async () => {
    const answer = await app.inject({
      method: 'POST',
      url: '/api/v1/creation/jobs',
      headers: { ...auth(), 'idempotency-key': 'long-field' },
      payload: { ...jobBody, ['y'.repeat(500_000)]: 1 },
    });
    expect(answer.statusCode).toBe(400);
    expect(answer.body.length).toBeLessThan(500);
    expect(answer.json().error.message).toMatch(/unknown field "y{100}…"/);
  });
});

describe('gateway http - the document and the server agree on request bodies', () => {
  type Operation = { operationId: string; requestBody?: { required?: boolean }; parameters?: { in: string; name: string }[] };
  it('refuses a missing body with 400 naming it exactly where the document says a body is required, and takes none elsewhere', async () => {
    const document = (await app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, Operation>>;
    };
    const withBodies = Object.entries(document.paths).flatMap(([path, byMethod]) =>
      Object.entries(byMethod)
        .filter(([, operation]) => operation.requestBody)
        .map(([method, operation]) => ({ path, method, operation })),
    );
    expect(withBodies.length).toBeGreaterThanOrEqual(8);
    for (const { path, method, operation } of withBodies) {
      // Path parameters valid for their routes: ids are UUIDs, catalog codes are words.
      const url = path.replace(/\{code\}/g, 'watercolor').replace(/\{[^}]+\}/g, '019a0000-0000-7000-8000-0000000000aa');
      const headers: Record<string, string> = { ...auth(path.startsWith('/admin-api/') ? adminToken : userToken) };
      if (operation.parameters?.some((p) => p.in === 'header' && p.name === 'idempotency-key')) headers['idempotency-key'] = 'no-body';
      const answer = await app.inject({ method: method.toUpperCase() as 'POST', url, headers });
      const label = `${method.toUpperCase()} ${path} (${operation.operationId})`;
      if (operation.requestBody!.required) {
        expect(answer.statusCode, `${label} documents a required body`).toBe(400);
        expect(answer.json().error.message, label).toMatch(/body/);
      } else {
        expect(answer.statusCode, `${label} documents an optional body: ${answer.body}`).not.toBe(400);
        expect(answer.statusCode, label).toBeLessThan(500);
      }
    }
  });
});

describe('gateway - probes', () => {
  it('turns ready once every peer has been SERVING, then stays ready while /readyz/peers reports an outage', async () => {
    let health: Record<string, string> = { catalog: 'SERVING', media: 'SERVING', jobs: 'UNREACHABLE', community: 'SERVING' };
    const probed = await buildGateway({
      peers,
      tokens: await createTokenVerifier({ jwksUrl: 'http://127.0.0.1:1/jwks.json', issuer: 'test-issuer', audience: 'atelier-app' }),
      logger: createLogger({ service: 'gateway-test', level: 'silent' }),
      upstreamDeadlineMs: 1000,
      sseKeepAliveMs: 1000,
      sseMaxStreamsPerUser: 5,
      peerHealth: async () => health,
    });
    try {
      expect((await probed.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(503);
      health = { ...health, jobs: 'SERVING' };
      expect((await probed.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
      health = { ...health, community: 'NOT_SERVING' };
      expect((await probed.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
      const peersNow = await probed.inject({ method: 'GET', url: '/readyz/peers' });
      expect(peersNow.statusCode).toBe(503);
      expect(peersNow.json()).toEqual({ peers: health });
      expect((await probed.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    } finally {
      await probed.close();
    }
  });
});

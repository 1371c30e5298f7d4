import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogV1, commonV1, jobsAdminV1, jobsExecutionV1, jobsV1 } from '@atelier/contracts';
import { FailedPreconditionError, InvalidArgumentError, NotFoundError } from '@atelier/errors';
import type { FastifyInstance } from 'fastify';
import type { GatewayPeers } from '../gateway-context.js';
import { gatewayOverFakePeers } from '../test-support/gateway-over-fake-peers.js';

// The operator routes over fakes of jobs' admin API and the catalog that record what they were
// asked: the translation both ways, the refusals, and the documented examples.
const jobId = '019a0000-0000-7000-8000-0000000000aa';
const endedId = '019a0000-0000-7000-8000-0000000000bb';
const unknownId = '019a0000-0000-7000-8000-0000000000cc';
const at = new Date('2026-12-01T09:00:00Z');
const later = new Date('2026-12-01T09:00:02Z');
const adminJob = jobsAdminV1.AdminJob.fromPartial({
  job: {
    id: jobId,
    userId: 'alice',
    jobType: 'system.canary',
    status: jobsV1.JobStatus.CANCELLED,
    createdAt: at,
    updatedAt: later,
    version: 3,
    prompt: 'my cat, in the rain',
    negativePrompt: 'no umbrella',
  },
  internalErrorMessage: 'vendor answered 503',
  providerRequestId: 'pred_1',
  abandonedProviderRequests: 1,
});
const model = catalogV1.Model.fromPartial({
  id: '019a0000-0000-7000-8000-000000000001',
  code: 'sim-stylize',
  displayName: 'Stylize',
  providerCode: 'sim',
  providerModel: 'sim-stylize',
  modelVersion: '1',
  mediaKind: commonV1.MediaKind.IMAGE,
  jobType: 'image.stylize',
  enabled: false,
  defaultParameters: { strength: 0.5 },
  createdAt: at,
  updatedAt: at,
});
const style = catalogV1.Style.fromPartial({
  id: '019a0000-0000-7000-8000-000000000002',
  code: 'noir',
  title: 'Noir',
  mediaKind: commonV1.MediaKind.IMAGE,
  promptPreset: 'film noir',
  enabled: true,
  createdAt: at,
  updatedAt: at,
});
const asked: Record<string, unknown[]> = {};
const record = (name: string, request: unknown) => (asked[name] ??= []).push(request);

const peers = {
  jobsAdmin: {
    getJobDetails: async (request: jobsAdminV1.GetJobDetailsRequest) => {
      record('getJobDetails', request);
      if (request.jobId !== jobId) throw new NotFoundError('job');
      return {
        job: adminJob,
        events: [
          {
            id: 1,
            jobId,
            fromStatus: jobsV1.JobStatus.UNSPECIFIED,
            toStatus: jobsV1.JobStatus.QUEUED,
            attempt: 0,
            actor: 'user:alice',
            occurredAt: at,
          },
          {
            id: 2,
            jobId,
            fromStatus: jobsV1.JobStatus.RUNNING,
            toStatus: jobsV1.JobStatus.QUEUED,
            attempt: 1,
            actor: 'worker:w1',
            errorCode: 'PROVIDER_UNAVAILABLE',
            errorClass: jobsExecutionV1.ErrorClass.PROVIDER,
            detail: 'vendor answered 503',
            occurredAt: later,
          },
        ],
        attempts: [
          {
            attempt: 1,
            queuedAt: at,
            startedAt: at,
            endedAt: later,
            queuedWaitMs: 0,
            runMs: 2000,
            outcome: jobsV1.JobStatus.QUEUED,
            claimedBy: 'worker:w1',
            endedBy: 'worker:w1',
            errorCode: 'PROVIDER_UNAVAILABLE',
            errorClass: jobsExecutionV1.ErrorClass.PROVIDER,
            errorDetail: 'vendor answered 503',
          },
        ],
      };
    },
    cancelJob: async (request: jobsAdminV1.JobsAdminServiceCancelJobRequest) => {
      record('cancelJob', request);
      if (request.jobId === endedId) throw new FailedPreconditionError('JOB_ALREADY_FINISHED', 'the job has already succeeded');
      if (request.jobId !== jobId) throw new NotFoundError('job');
      return { job: adminJob };
    },
    listOutboxReplays: async (request: jobsAdminV1.ListOutboxReplaysRequest) => {
      record('listOutboxReplays', request);
      return {
        replays: [{ id: 7, outboxId: '42', operatorId: 'ops', result: jobsAdminV1.OutboxReplayResult.NOT_DEAD, replayedAt: at }],
        nextPageToken: '7',
      };
    },
  },
  catalog: {
    listCatalogEntries: async (request: catalogV1.ListCatalogEntriesRequest) => {
      record('listCatalogEntries', request);
      return { models: [model], styles: [style] };
    },
    upsertModel: async (request: catalogV1.UpsertModelRequest) => {
      record('upsertModel', request);
      return { model: { ...model, code: request.code }, created: request.code === 'brand-new' };
    },
    upsertStyle: async (request: catalogV1.UpsertStyleRequest) => {
      record('upsertStyle', request);
      if (request.previewAssetId === unknownId) throw new InvalidArgumentError('preview_asset_id', 'is no ready image');
      return { style: { ...style, code: request.code }, created: false };
    },
    setModelEnabled: async (request: catalogV1.SetModelEnabledRequest) => {
      record('setModelEnabled', request);
      if (request.modelId !== model.id) throw new NotFoundError('model');
      return { model: { ...model, enabled: request.enabled } };
    },
    setStyleEnabled: async (request: catalogV1.SetStyleEnabledRequest) => {
      record('setStyleEnabled', request);
      if (request.styleId !== style.id) throw new NotFoundError('style');
      return { style: { ...style, enabled: request.enabled } };
    },
  },
} as unknown as GatewayPeers;

let app: FastifyInstance;
let admin: string;
let superAdmin: string;
let user: string;

beforeAll(async () => {
  const gateway = await gatewayOverFakePeers(peers);
  app = gateway.app;
  [admin, superAdmin, user] = await Promise.all([
    gateway.token('ops-carol', ['admin']),
    gateway.token('ops-dana', ['super_admin']),
    gateway.token('alice'),
  ]);
});

afterAll(async () => {
  await app?.close();
});

type Method = 'GET' | 'POST' | 'PUT';
const call = (method: Method, url: string, payload?: object, token = admin) =>
  app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });
const modelBody = {
  mediaKind: 'image',
  displayName: 'Stylize',
  providerCode: 'sim',
  providerModel: 'sim-stylize',
  modelVersion: '2',
  jobType: 'image.stylize',
  defaultParameters: { strength: 0.4 },
};

const ROUTES: [Method, string, object?][] = [
  ['GET', `/admin-api/jobs/${jobId}`],
  ['POST', `/admin-api/jobs/${jobId}/cancel`],
  ['GET', '/admin-api/outbox/replays'],
  ['GET', '/admin-api/catalog'],
  ['PUT', '/admin-api/catalog/models/sim-stylize', modelBody],
  ['PUT', '/admin-api/catalog/styles/noir', { mediaKind: 'image', title: 'Noir' }],
  ['POST', `/admin-api/catalog/models/${model.id}/enable`],
  ['POST', `/admin-api/catalog/models/${model.id}/disable`],
  ['POST', `/admin-api/catalog/styles/${style.id}/enable`],
  ['POST', `/admin-api/catalog/styles/${style.id}/disable`],
];

describe('admin routes - who may call them', () => {
  it.each(ROUTES)('%s %s answers 403/40301 to a user without an operator role, asking no service', async (method, url, body) => {
    const before = JSON.stringify(asked);
    const response = await call(method, url, body, user);
    expect(response.statusCode).toBe(403);
    expect(response.json().error).toMatchObject({ code: 40301, name: 'FORBIDDEN' });
    expect(JSON.stringify(asked)).toBe(before);
  });
});

describe('admin routes - job detail and cancel', () => {
  it('answers the job, each transition and each attempt in the API words (to super_admin, with the internal messages)', async () => {
    const response = await call('GET', `/admin-api/jobs/${jobId}`, undefined, superAdmin);
    expect(response.statusCode).toBe(200);
    const body = response.json();
    // One level: the job's own fields beside what only operators see, never { job: { job } }.
    expect(body.job).not.toHaveProperty('job');
    expect(body.job).toMatchObject({
      id: jobId,
      jobType: 'system.canary',
      status: 'cancelled',
      userId: 'alice',
      providerRequestId: 'pred_1',
      abandonedProviderRequests: 1,
      internalErrorMessage: 'vendor answered 503',
      prompt: 'my cat, in the rain',
      negativePrompt: 'no umbrella',
    });
    expect(body.events).toEqual([
      {
        id: 1,
        from: null,
        to: 'queued',
        attempt: 0,
        actor: 'user:alice',
        errorCode: null,
        errorClass: null,
        detail: null,
        at: at.toISOString(),
      },
      {
        id: 2,
        from: 'running',
        to: 'queued',
        attempt: 1,
        actor: 'worker:w1',
        errorCode: 'PROVIDER_UNAVAILABLE',
        errorClass: 'provider',
        detail: 'vendor answered 503',
        at: later.toISOString(),
      },
    ]);
    expect(body.attempts).toEqual([
      {
        attempt: 1,
        queuedAt: at.toISOString(),
        startedAt: at.toISOString(),
        endedAt: later.toISOString(),
        queuedWaitMs: 0,
        runMs: 2000,
        outcome: 'queued',
        claimedBy: 'worker:w1',
        endedBy: 'worker:w1',
        errorCode: 'PROVIDER_UNAVAILABLE',
        errorClass: 'provider',
        errorDetail: 'vendor answered 503',
      },
    ]);
  });

  it('shows the internal messages and what the user wrote to super_admin only: admin reads null in the job, its transitions and its attempts', async () => {
    const body = (await call('GET', `/admin-api/jobs/${jobId}`)).json();
    expect(body.job).toMatchObject({
      id: jobId,
      providerRequestId: 'pred_1',
      internalErrorMessage: null,
      prompt: null,
      negativePrompt: null,
    });
    expect(body.events.map((event: { detail: string | null }) => event.detail)).toEqual([null, null]);
    expect(body.attempts.map((attempt: { errorDetail: string | null }) => attempt.errorDetail)).toEqual([null]);
    expect(body.events[1]).toMatchObject({ errorCode: 'PROVIDER_UNAVAILABLE' });
  });

  it('cancels as the signed-in admin; 422 naming the status once ended, 404 for an unknown job, 400 naming a bad id', async () => {
    const cancelled = await call('POST', `/admin-api/jobs/${jobId}/cancel`);
    expect(cancelled.statusCode).toBe(200);
    expect(cancelled.json().job.status).toBe('cancelled');
    expect(asked.cancelJob!.at(-1)).toEqual({
      jobId,
      operatorId: 'ops-carol',
      actor: { subject: 'ops-carol', role: 'admin', route: 'POST /admin-api/jobs/:jobId/cancel' },
    });
    const ended = await call('POST', `/admin-api/jobs/${endedId}/cancel`);
    expect(ended.statusCode).toBe(422);
    expect(ended.json().error).toMatchObject({ code: 42206, name: 'GENERATION_RULE_VIOLATION', message: 'the job has already succeeded' });
    expect((await call('POST', `/admin-api/jobs/${unknownId}/cancel`)).json().error).toMatchObject({ code: 40407 });
    expect((await call('GET', `/admin-api/jobs/${unknownId}`)).statusCode).toBe(404);
    for (const url of ['/admin-api/jobs/nope', '/admin-api/jobs/nope/cancel']) {
      const bad = await call(url.endsWith('cancel') ? 'POST' : 'GET', url);
      expect(bad.statusCode).toBe(400);
      expect(bad.json().error.message).toContain('jobId');
    }
  });
});

describe('admin routes - the replay audit', () => {
  it('pages the audit with the cursor the service gave', async () => {
    const response = await call('GET', '/admin-api/outbox/replays?limit=1&cursor=9');
    expect(response.json()).toEqual({
      items: [{ id: '7', outboxId: '42', operatorId: 'ops', result: 'not_dead', replayedAt: at.toISOString() }],
      nextCursor: '7',
    });
    expect(asked.listOutboxReplays!.at(-1)).toEqual({ pageSize: 1, pageToken: '9' });
    const bad = await call('GET', '/admin-api/outbox/replays?limit=500');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.message).toContain('limit');
  });
});

describe('admin routes - catalog', () => {
  it('lists every entry, disabled ones included, of one kind or all', async () => {
    const all = await call('GET', '/admin-api/catalog');
    expect(all.json().models[0]).toMatchObject({ code: 'sim-stylize', enabled: false, providerCode: 'sim', providerModel: 'sim-stylize' });
    expect(all.json().styles[0]).toMatchObject({ code: 'noir', enabled: true, promptPreset: 'film noir' });
    expect(asked.listCatalogEntries!.at(-1)).toEqual({ mediaKind: commonV1.MediaKind.UNSPECIFIED });
    await call('GET', '/admin-api/catalog?mediaKind=image');
    expect(asked.listCatalogEntries!.at(-1)).toEqual({ mediaKind: commonV1.MediaKind.IMAGE });
    expect((await call('GET', '/admin-api/catalog?mediaKind=audio')).json().error.message).toContain('mediaKind');
  });

  it('upserts a model (201 created, 200 replaced) and a style, with the code from the path', async () => {
    const created = await call('PUT', '/admin-api/catalog/models/brand-new', modelBody);
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({ created: true, model: { code: 'brand-new' } });
    expect(asked.upsertModel!.at(-1)).toMatchObject({
      code: 'brand-new',
      mediaKind: commonV1.MediaKind.IMAGE,
      modelVersion: '2',
      enabled: undefined,
      sortOrder: 0,
      defaultParameters: { strength: 0.4 },
    });
    expect((await call('PUT', '/admin-api/catalog/models/sim-stylize', { ...modelBody, enabled: false })).statusCode).toBe(200);
    expect(asked.upsertModel!.at(-1)).toMatchObject({ enabled: false });
    const styled = await call('PUT', '/admin-api/catalog/styles/noir', { mediaKind: 'image', title: 'Noir', sortOrder: 3 });
    expect(styled.statusCode).toBe(200);
    expect(asked.upsertStyle!.at(-1)).toMatchObject({
      code: 'noir',
      title: 'Noir',
      subtitle: '',
      promptPreset: '',
      sortOrder: 3,
      previewAssetId: undefined,
    });
    // A code may start with a digit: the app's style 3d.
    expect((await call('PUT', '/admin-api/catalog/styles/3d', { mediaKind: 'image', title: '3D Cartoon' })).statusCode).toBe(200);
    expect(asked.upsertStyle!.at(-1)).toMatchObject({ code: '3d', title: '3D Cartoon' });
  });

  it('refuses bad input with 400 naming the field, before or at the catalog', async () => {
    const cases: [string, object, string][] = [
      ['/admin-api/catalog/models/Bad Code', modelBody, 'code'],
      ['/admin-api/catalog/styles/-3d', { mediaKind: 'image', title: 'N' }, 'code'],
      ['/admin-api/catalog/models/sim-stylize', { ...modelBody, displayName: '' }, 'displayName'],
      ['/admin-api/catalog/models/sim-stylize', { ...modelBody, jobType: 'Image' }, 'jobType'],
      ['/admin-api/catalog/models/sim-stylize', { ...modelBody, sortOrder: 2_000_000 }, 'sortOrder'],
      ['/admin-api/catalog/models/sim-stylize', { ...modelBody, mediaKind: undefined }, 'mediaKind'],
      ['/admin-api/catalog/models/sim-stylize', { ...modelBody, surprise: 1 }, 'surprise'],
      ['/admin-api/catalog/styles/noir', { mediaKind: 'image' }, 'title'],
      ['/admin-api/catalog/styles/noir', { mediaKind: 'image', title: 'N', previewAssetId: 'x' }, 'previewAssetId'],
      ['/admin-api/catalog/styles/noir', { mediaKind: 'image', title: 'N', previewAssetId: unknownId }, 'preview_asset_id'],
    ];
    for (const [url, body, field] of cases) {
      const response = await call('PUT', url.replace(' ', '%20'), body);
      expect(response.statusCode, `${url} ${field}`).toBe(400);
      expect(response.json().error.message, field).toContain(field);
    }
  });

  it('enables and disables models and styles; 404 for an unknown id, 400 for a malformed one', async () => {
    const disabled = await call('POST', `/admin-api/catalog/models/${model.id}/disable`);
    expect(disabled.json().model.enabled).toBe(false);
    expect(asked.setModelEnabled!.at(-1)).toEqual({
      modelId: model.id,
      enabled: false,
      actor: { subject: 'ops-carol', role: 'admin', route: 'POST /admin-api/catalog/models/:id/disable' },
    });
    expect((await call('POST', `/admin-api/catalog/models/${model.id}/enable`)).json().model.enabled).toBe(true);
    expect((await call('POST', `/admin-api/catalog/styles/${style.id}/disable`)).json().style.enabled).toBe(false);
    expect((await call('POST', `/admin-api/catalog/styles/${style.id}/enable`)).json().style.enabled).toBe(true);
    const missing = await call('POST', `/admin-api/catalog/styles/${unknownId}/enable`);
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.message).toBe('style not found');
    expect((await call('POST', `/admin-api/catalog/models/${unknownId}/disable`)).statusCode).toBe(404);
    const bad = await call('POST', '/admin-api/catalog/models/nope/disable');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.message).toContain('id');
  });
});

describe('admin routes - OpenAPI', () => {
  it('documents every operator route with an example that matches its own schema', async () => {
    const spec = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const ajv = new Ajv2020.default({ strict: false });
    addFormats.default(ajv as never);
    for (const [name, schema] of Object.entries(spec.components.schemas)) ajv.addSchema(schema as object, `#/components/schemas/${name}`);
    const documented = [
      ['get', '/admin-api/jobs/{jobId}'],
      ['post', '/admin-api/jobs/{jobId}/cancel'],
      ['get', '/admin-api/outbox/replays'],
      ['get', '/admin-api/catalog'],
      ['put', '/admin-api/catalog/models/{code}'],
      ['put', '/admin-api/catalog/styles/{code}'],
      ['post', '/admin-api/catalog/models/{id}/enable'],
      ['post', '/admin-api/catalog/models/{id}/disable'],
      ['post', '/admin-api/catalog/styles/{id}/enable'],
      ['post', '/admin-api/catalog/styles/{id}/disable'],
    ];
    for (const [method, path] of documented) {
      const operation = spec.paths[path!]?.[method!];
      expect(operation, `${method} ${path}`).toBeDefined();
      const content = operation.responses['200'].content['application/json'];
      // @fastify/swagger puts a single example in `example`, several in `examples`.
      const examples =
        content.example === undefined
          ? Object.values(content.examples ?? {}).map((e) => (e as { value: unknown }).value)
          : [content.example];
      expect(examples.length, `${method} ${path} has an example`).toBeGreaterThan(0);
      const validate = ajv.compile(content.schema);
      for (const example of examples) expect(validate(example), `${path}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
  });
});

import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError, ErrorCode, InvalidArgumentError, NotFoundError, ResourceExhaustedError, UnavailableError } from '@atelier/errors';
import { catalogV1, commonV1, jobsV1, loadDescriptorSet } from '@atelier/contracts';
import { checkHealth, listReflectedServices, testSecurity } from '@atelier/testing';
import {
  GrpcStatus,
  Metadata,
  createServiceClient,
  registerService,
  startGrpcServer,
  type GrpcSecurity,
  type GrpcServerHandle,
  type ServiceHandlers,
} from './index.js';

const silent = { debug: () => {}, info: () => {}, error: () => {} };
const CATALOG = 'atelier.catalog.v1.CatalogService';
const JOBS = 'atelier.jobs.v1.JobsService';

// A peer service double: handlers that fail in scripted ways, behind the real server bootstrap.
let unavailableBeforeSuccess = 0;
let getModelCalls = 0;
let releaseSlowCall: () => void = () => {};
/** The signal each GetModel call was handed, in order. */
const getModelSignals: AbortSignal[] = [];

const unimplemented = async (): Promise<never> => {
  throw new AppError(ErrorCode.INTERNAL, 'not used in this test');
};

const catalogHandlers: ServiceHandlers<typeof catalogV1.CatalogServiceService> = {
  getStylePreview: unimplemented,
  setModelPrice: unimplemented,
  listAuditEntries: unimplemented,
  async getCatalog(request) {
    if (request.mediaKind === commonV1.MediaKind.UNSPECIFIED) throw new InvalidArgumentError('media_kind', 'must be IMAGE or VIDEO');
    if (request.mediaKind === commonV1.MediaKind.VIDEO) throw new ResourceExhaustedError('GENERATION_QUOTA_EXCEEDED', 'slow down', 42);
    return { models: [], styles: [] };
  },
  async getModel(request, context) {
    getModelCalls += 1;
    getModelSignals.push(context.signal);
    if (request.modelId === 'flaky' && unavailableBeforeSuccess > 0) {
      unavailableBeforeSuccess -= 1;
      throw new UnavailableError('database restarting');
    }
    if (request.modelId === 'bug') throw new TypeError('cannot read properties of undefined (secret detail)');
    if (request.modelId === 'slow') {
      await new Promise<void>((resolve) => (releaseSlowCall = resolve));
    }
    if (request.modelId === 'missing') throw new NotFoundError('model');
    return { model: catalogV1.Model.fromPartial({ id: request.modelId, code: 'm' }) };
  },
  getStyle: unimplemented,
  listCatalogEntries: unimplemented,
  upsertModel: unimplemented,
  upsertStyle: unimplemented,
  setModelEnabled: unimplemented,
  setStyleEnabled: unimplemented,
};

const jobsHandlers: ServiceHandlers<typeof jobsV1.JobsServiceService> = {
  createJob: unimplemented,
  getJob: unimplemented,
  listJobs: unimplemented,
  cancelJob: unimplemented,
  getQuota: unimplemented,
  requestAccountDeletion: unimplemented,
  getAccountDeletion: unimplemented,
  async watchJob(request, stream) {
    if (request.jobId === 'missing') throw new NotFoundError('job');
    for (const progress of [10, 60, 100]) {
      await stream.write({ job: jobsV1.Job.fromPartial({ id: request.jobId, progress }) });
    }
  },
};

let server: GrpcServerHandle;
let address: string;
let gateway: GrpcSecurity;
let catalogIdentity: GrpcSecurity;
const observedCalls: { method: string; code: string; seconds: number }[] = [];

const catalogRegistration = () =>
  registerService(CATALOG, catalogV1.CatalogServiceService, catalogHandlers, silent, { gateway: 'all', worker: ['getModel'] });

beforeAll(async () => {
  gateway = await testSecurity('gateway');
  catalogIdentity = await testSecurity('catalog');
  server = await startGrpcServer({
    host: '127.0.0.1',
    port: 0,
    healthPort: 0,
    reflection: true,
    security: catalogIdentity,
    logger: silent,
    descriptorSet: loadDescriptorSet(),
    services: [catalogRegistration(), registerService(JOBS, jobsV1.JobsServiceService, jobsHandlers, silent, { gateway: 'all' })],
    callObserver: (method, code, seconds) => observedCalls.push({ method, code, seconds }),
  });
  address = `127.0.0.1:${server.port}`;
});

afterAll(async () => {
  await server.shutdown(100);
});

describe('grpc - error mapping', () => {
  it('answers a domain error with its status, reason and field in trailing metadata', async () => {
    const client = createServiceClient(catalogV1.CatalogServiceClient, address, gateway);
    const error = await client.getCatalog({ mediaKind: commonV1.MediaKind.UNSPECIFIED }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: ErrorCode.INVALID_ARGUMENT, reason: 'INVALID_ARGUMENT', field: 'media_kind' });
    expect((error as AppError).message).toBe('media_kind: must be IMAGE or VIDEO');
    expect(((error as AppError).cause as { code: number }).code).toBe(GrpcStatus.INVALID_ARGUMENT);
    client.close();
  });

  it('carries retry-after seconds on RESOURCE_EXHAUSTED', async () => {
    const client = createServiceClient(catalogV1.CatalogServiceClient, address, gateway);
    const error = await client.getCatalog({ mediaKind: commonV1.MediaKind.VIDEO }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ErrorCode.RESOURCE_EXHAUSTED, reason: 'GENERATION_QUOTA_EXCEEDED', retryAfterSeconds: 42 });
    client.close();
  });

  it('hides an unexpected error behind INTERNAL', async () => {
    const client = createServiceClient(catalogV1.CatalogServiceClient, address, gateway);
    const error = await client.getModel({ modelId: 'bug' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ErrorCode.INTERNAL, message: 'internal error' });
    expect(JSON.stringify((error as AppError).message)).not.toContain('secret detail');
    client.close();
  });

  it('ends a server stream with the domain status', async () => {
    const client = createServiceClient(jobsV1.JobsServiceClient, address, gateway, { serverName: 'catalog' });
    const received: number[] = [];
    for await (const update of client.raw.watchJob({ jobId: 'j1', userId: 'u', afterVersion: 0 })) {
      received.push((update as jobsV1.WatchJobResponse).job!.progress);
    }
    expect(received).toEqual([10, 60, 100]);
    const failing = client.raw.watchJob({ jobId: 'missing', userId: 'u', afterVersion: 0 });
    const error = await (async () => {
      try {
        for await (const _ of failing) void _;
      } catch (e) {
        return e;
      }
    })();
    expect(error).toMatchObject({ code: GrpcStatus.NOT_FOUND, details: 'job not found' });
    client.close();
  });
});

describe('grpc - call observer', () => {
  it('tells the observer of every finished call: method, status name and duration, streams included', async () => {
    const client = createServiceClient(catalogV1.CatalogServiceClient, address, gateway);
    const jobs = createServiceClient(jobsV1.JobsServiceClient, address, gateway, { serverName: 'catalog' });
    observedCalls.length = 0;
    await client.getModel({ modelId: 'm1' });
    await client.getModel({ modelId: 'missing' }).catch(() => undefined);
    for await (const _ of jobs.raw.watchJob({ jobId: 'j2', userId: 'u', afterVersion: 0 })) void _;
    await (async () => {
      for await (const _ of jobs.raw.watchJob({ jobId: 'missing', userId: 'u', afterVersion: 0 })) void _;
    })().catch(() => undefined);
    expect(observedCalls.map(({ method, code }) => `${method} ${code}`)).toEqual([
      `/${CATALOG}/GetModel OK`,
      `/${CATALOG}/GetModel NOT_FOUND`,
      `/${JOBS}/WatchJob OK`,
      `/${JOBS}/WatchJob NOT_FOUND`,
    ]);
    expect(observedCalls.every((call) => call.seconds >= 0 && call.seconds < 5)).toBe(true);
    client.close();
    jobs.close();
  });
});

describe('grpc - connection age', () => {
  it('closes connections at their maximum age without failing the calls of a client that goes on calling', async () => {
    let connections = 0;
    const aged = await startGrpcServer({
      host: '127.0.0.1',
      port: 0,
      logger: silent,
      descriptorSet: loadDescriptorSet(),
      healthPort: 0,
      security: catalogIdentity,
      services: [catalogRegistration()],
      maxConnectionAgeMs: 150,
    });
    const counter = net.createServer((socket) => {
      connections += 1;
      const upstream = net.connect(aged.port, '127.0.0.1');
      socket.pipe(upstream).pipe(socket);
      socket.on('error', () => upstream.destroy());
      upstream.on('error', () => socket.destroy());
    });
    await new Promise<void>((resolve) => counter.listen(0, '127.0.0.1', resolve));
    const client = createServiceClient(catalogV1.CatalogServiceClient, `127.0.0.1:${(counter.address() as net.AddressInfo).port}`, gateway);
    try {
      for (let i = 0; i < 12; i += 1) {
        expect((await client.getModel({ modelId: 'm1' })).model?.id).toBe('m1');
        await new Promise((resolve) => setTimeout(resolve, 60));
      }
      // Each close made the client connect (and resolve) again.
      expect(connections).toBeGreaterThan(1);
    } finally {
      client.close();
      counter.close();
      await aged.shutdown(100);
    }
  });
});

describe('grpc - client retries and deadlines', () => {
  it('retries UNAVAILABLE with backoff and succeeds', async () => {
    const client = createServiceClient(catalogV1.CatalogServiceClient, address, gateway, { initialBackoffMs: 10 });
    unavailableBeforeSuccess = 2;
    getModelCalls = 0;
    const response = await client.getModel({ modelId: 'flaky' });
    expect(response.model?.id).toBe('flaky');
    expect(getModelCalls).toBe(3);
    client.close();
  });

  it('does not retry an answer such as NOT_FOUND', async () => {
    const client = createServiceClient(catalogV1.CatalogServiceClient, address, gateway, { initialBackoffMs: 10 });
    getModelCalls = 0;
    await expect(client.getModel({ modelId: 'missing' })).rejects.toMatchObject({ code: ErrorCode.NOT_FOUND, reason: 'MODEL_NOT_FOUND' });
    expect(getModelCalls).toBe(1);
    client.close();
  });

  it('gives up after maxAttempts and reports UNAVAILABLE', async () => {
    const client = createServiceClient(catalogV1.CatalogServiceClient, address, gateway, { initialBackoffMs: 10, maxAttempts: 2 });
    unavailableBeforeSuccess = 5;
    getModelCalls = 0;
    await expect(client.getModel({ modelId: 'flaky' })).rejects.toMatchObject({ code: ErrorCode.UNAVAILABLE });
    expect(getModelCalls).toBe(2);
    unavailableBeforeSuccess = 0;
    client.close();
  });

  it('applies the default deadline to unary calls', async () => {
    const client = createServiceClient(catalogV1.CatalogServiceClient, address, gateway, { defaultDeadlineMs: 100 });
    const startedAt = Date.now();
    await expect(client.getModel({ modelId: 'slow' })).rejects.toMatchObject({ code: ErrorCode.DEADLINE_EXCEEDED });
    expect(Date.now() - startedAt).toBeLessThan(2000);
    releaseSlowCall();
    client.close();
  });

  it("aborts a unary handler's signal when its caller gives up, and never once it has answered", async () => {
    const client = createServiceClient(catalogV1.CatalogServiceClient, address, gateway, { defaultDeadlineMs: 200 });
    const from = getModelSignals.length;
    await client.getModel({ modelId: 'answered' });
    await expect(client.getModel({ modelId: 'slow' })).rejects.toMatchObject({ code: ErrorCode.DEADLINE_EXCEEDED });
    const [answered, abandoned] = getModelSignals.slice(from);
    for (let waited = 0; !abandoned!.aborted && waited < 2_000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
    releaseSlowCall();
    // grpc-js tells the server 'cancelled' when a call's stream closes, after an answer too: long past by now.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(abandoned!.aborted).toBe(true);
    expect(answered!.aborted).toBe(false);
    client.close();
  });

  it('reports UNAVAILABLE when nothing listens, after retrying', async () => {
    const client = createServiceClient(catalogV1.CatalogServiceClient, '127.0.0.1:1', gateway, { initialBackoffMs: 10, maxAttempts: 2 });
    await expect(client.getModel({ modelId: 'x' })).rejects.toMatchObject({ code: ErrorCode.UNAVAILABLE });
    client.close();
  });
});

describe('grpc - health, reflection and shutdown', () => {
  it('answers grpc.health.v1 SERVING for the server and each service, in plaintext on the health port', async () => {
    const healthAddress = `127.0.0.1:${server.healthPort}`;
    expect(await checkHealth(healthAddress)).toBe('SERVING');
    expect(await checkHealth(healthAddress, CATALOG)).toBe('SERVING');
    await expect(checkHealth(healthAddress, 'atelier.nope.v1.Nope')).rejects.toMatchObject({ code: GrpcStatus.NOT_FOUND });
  });

  it('answers health on the main port to any caller with a platform certificate', async () => {
    const worker = await testSecurity('worker');
    expect(await checkHealth({ address, tls: { security: worker, serverName: 'catalog' } })).toBe('SERVING');
  });

  it('lists exactly the registered services through reflection, when enabled', async () => {
    expect(await listReflectedServices(address, gateway, 'catalog')).toEqual([CATALOG, JOBS]);
  });

  it('lets an in-flight call finish, then stops serving', async () => {
    const own = await startGrpcServer({
      host: '127.0.0.1',
      port: 0,
      logger: silent,
      descriptorSet: loadDescriptorSet(),
      healthPort: 0,
      security: catalogIdentity,
      services: [catalogRegistration()],
    });
    const client = createServiceClient(catalogV1.CatalogServiceClient, `127.0.0.1:${own.port}`, gateway, {
      maxAttempts: 2,
      initialBackoffMs: 10,
    });
    const callsBefore = getModelCalls;
    const inFlight = client.getModel({ modelId: 'slow' });
    while (getModelCalls === callsBefore) await new Promise((resolve) => setTimeout(resolve, 10));
    const stopped = own.shutdown(5_000);
    setTimeout(() => releaseSlowCall(), 50);
    await expect(inFlight).resolves.toMatchObject({ model: { id: 'slow' } });
    await stopped;
    await expect(client.getModel({ modelId: 'x' })).rejects.toMatchObject({ code: ErrorCode.UNAVAILABLE });
    client.close();
  });
});

describe('grpc - mutual TLS and per-method authorization', () => {
  it('refuses a caller without a certificate at the handshake', async () => {
    // A plaintext client, then a TLS client that trusts the CA but presents no certificate.
    const { credentials } = await import('@grpc/grpc-js');
    for (const creds of [
      credentials.createInsecure(),
      credentials.createSsl(gateway.ca, null, null, { checkServerIdentity: () => undefined }),
    ]) {
      const raw = new catalogV1.CatalogServiceClient(address, creds);
      const error = await new Promise<{ code?: number }>((resolve) =>
        raw.getModel({ modelId: 'm' }, new Metadata(), { deadline: Date.now() + 2_000 }, (e) => resolve(e ?? {})),
      );
      expect(error.code).toBe(GrpcStatus.UNAVAILABLE);
      raw.close();
    }
  });

  it('refuses a certificate from another CA', async () => {
    const { ensureDevPki } = await import('@atelier/testing');
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const path = await import('node:path');
    const directory = mkdtempSync(path.join(tmpdir(), 'atelier-foreign-ca-'));
    try {
      const { loadGrpcSecurity } = await import('./index.js');
      const foreign = loadGrpcSecurity((await ensureDevPki(directory, { identities: ['gateway'] })).filesOf('gateway'));
      // Trusts our CA (so the server is accepted) but presents a gateway certificate of its own CA.
      const client = createServiceClient(
        catalogV1.CatalogServiceClient,
        address,
        { ...foreign, ca: gateway.ca },
        { maxAttempts: 2, initialBackoffMs: 10 },
      );
      await expect(client.getModel({ modelId: 'm' })).rejects.toMatchObject({ code: ErrorCode.UNAVAILABLE });
      client.close();
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('answers PERMISSION_DENIED to an identity the policy does not list, or for a method it does not allow', async () => {
    const stranger = createServiceClient(catalogV1.CatalogServiceClient, address, await testSecurity('stranger'));
    await expect(stranger.getModel({ modelId: 'm' })).rejects.toMatchObject({
      code: ErrorCode.PERMISSION_DENIED,
      message: expect.stringContaining('service stranger may not call /atelier.catalog.v1.CatalogService/GetModel'),
    });
    const worker = createServiceClient(catalogV1.CatalogServiceClient, address, await testSecurity('worker'));
    const callsBefore = getModelCalls;
    await expect(worker.getModel({ modelId: 'm' })).resolves.toMatchObject({ model: { id: 'm' } });
    expect(getModelCalls).toBe(callsBefore + 1);
    await expect(worker.getCatalog({ mediaKind: commonV1.MediaKind.IMAGE })).rejects.toMatchObject({ code: ErrorCode.PERMISSION_DENIED });
    const jobsAsWorker = createServiceClient(jobsV1.JobsServiceClient, address, await testSecurity('worker'), { serverName: 'catalog' });
    const stream = jobsAsWorker.raw.watchJob({ jobId: 'j', userId: 'u', afterVersion: 0 });
    const streamError = await new Promise<{ code?: number }>((resolve) => {
      stream.on('error', resolve);
      stream.on('end', () => resolve({}));
    });
    expect(streamError.code).toBe(GrpcStatus.PERMISSION_DENIED);
    expect(observedCalls).toContainEqual(
      expect.objectContaining({ method: '/atelier.catalog.v1.CatalogService/GetCatalog', code: 'PERMISSION_DENIED' }),
    );
    for (const client of [stranger, worker, jobsAsWorker]) client.close();
  });

  it('tells each connection its own identity when calls of two callers alternate (certificates read once per connection)', async () => {
    const stranger = createServiceClient(catalogV1.CatalogServiceClient, address, await testSecurity('stranger'));
    const worker = createServiceClient(catalogV1.CatalogServiceClient, address, await testSecurity('worker'));
    for (let round = 0; round < 3; round += 1) {
      await expect(worker.getModel({ modelId: 'm' })).resolves.toMatchObject({ model: { id: 'm' } });
      await expect(stranger.getModel({ modelId: 'm' })).rejects.toMatchObject({ code: ErrorCode.PERMISSION_DENIED });
    }
    for (const client of [stranger, worker]) client.close();
  });

  it('refuses a server whose certificate proves another service', async () => {
    // The catalog server's certificate proves "catalog": a jobs client will not talk to it.
    const jobs = createServiceClient(jobsV1.JobsServiceClient, address, gateway, { maxAttempts: 2, initialBackoffMs: 10 });
    await expect(jobs.getJob({ jobId: 'j', userId: 'u' })).rejects.toMatchObject({ code: ErrorCode.UNAVAILABLE });
    jobs.close();
  });

  it('serves no reflection unless asked', async () => {
    const quiet = await startGrpcServer({
      host: '127.0.0.1',
      port: 0,
      healthPort: 0,
      security: catalogIdentity,
      logger: silent,
      descriptorSet: loadDescriptorSet(),
      services: [catalogRegistration()],
    });
    await expect(listReflectedServices(`127.0.0.1:${quiet.port}`, gateway, 'catalog')).rejects.toMatchObject({
      code: GrpcStatus.UNIMPLEMENTED,
    });
    await quiet.shutdown(100);
  });
});

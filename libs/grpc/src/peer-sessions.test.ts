import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '@atelier/errors';
import { catalogV1, loadDescriptorSet } from '@atelier/contracts';
import { testSecurity, unusedHandlers } from '@atelier/testing';
import { createServiceClient, GrpcStatus, registerService, startGrpcServer, type GrpcSecurity, type GrpcServerHandle } from './index.js';
import { PeerSessions, type PeerSessionsOptions } from './peer-sessions.js';
import { callUnary, frameOf, type CallFailure } from './unary-call.js';

const silent = { debug: () => {}, info: () => {}, error: () => {} };
const GET_MODEL = catalogV1.CatalogServiceService.getModel;
const retry = { maxAttempts: 2, initialBackoffMs: 10, maxBackoffMs: 50 };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let gateway: GrpcSecurity;
let catalogIdentity: GrpcSecurity;
/** The signal of each `slow` GetModel call, in order. */
const slowSignals: AbortSignal[] = [];

/** A catalog server on host:port whose GetModel answers with the server's name as the model's code. */
function startCatalog(name: string, host: string, port = 0): Promise<GrpcServerHandle> {
  return startGrpcServer({
    host,
    port,
    healthPort: 0,
    security: catalogIdentity,
    logger: silent,
    descriptorSet: loadDescriptorSet(),
    services: [
      registerService(
        'atelier.catalog.v1.CatalogService',
        catalogV1.CatalogServiceService,
        {
          ...unusedHandlers(catalogV1.CatalogServiceService),
          async getModel(request, context) {
            if (request.modelId === 'slow') {
              slowSignals.push(context.signal);
              await new Promise<void>((resolve) => context.signal.addEventListener('abort', () => resolve(), { once: true }));
            }
            return { model: catalogV1.Model.fromPartial({ id: request.modelId, code: name }) };
          },
        },
        silent,
        { gateway: 'all' },
      ),
    ],
  });
}

/** GetModel over the transport alone: the code of the model, i.e. the name of the server that answered. */
async function whoAnswers(sessions: PeerSessions, deadlineMs = 2_000): Promise<string> {
  const request = frameOf(GET_MODEL.requestSerialize(catalogV1.GetModelRequest.fromPartial({ modelId: 'm' })));
  const message = await callUnary(sessions, GET_MODEL.path, request, { deadlineAt: Date.now() + deadlineMs }, retry);
  return GET_MODEL.responseDeserialize(message).model!.code;
}

const sessionsTo = (target: string, options?: PeerSessionsOptions) => new PeerSessions(target, gateway, 'catalog', options);

beforeAll(async () => {
  gateway = await testSecurity('gateway');
  catalogIdentity = await testSecurity('catalog');
});

describe('grpc client - connections of unary calls', () => {
  let first: GrpcServerHandle;
  let second: GrpcServerHandle;

  beforeAll(async () => {
    // Two pods of one Service: the same port on two addresses.
    first = await startCatalog('first', '127.0.0.1');
    second = await startCatalog('second', '127.0.0.2', first.port);
  });

  afterAll(async () => {
    await Promise.all([first.shutdown(100), second.shutdown(100)]);
  });

  it('spreads calls round-robin over every address the name resolves to, and drops an address it no longer resolves to', async () => {
    let addresses = ['127.0.0.1', '127.0.0.2'];
    const sessions = sessionsTo(`catalog.test:${first.port}`, { resolveHost: async () => addresses });
    try {
      const answered = [];
      for (let i = 0; i < 6; i += 1) answered.push(await whoAnswers(sessions));
      expect(answered).toEqual(['first', 'second', 'first', 'second', 'first', 'second']);

      // The name is resolved again once a connection closes (a server closes its connections at
      // their maximum age, or restarts): here the second pod is gone from the name.
      addresses = ['127.0.0.1'];
      await second.shutdown(100);
      second = await startCatalog('second', '127.0.0.2', first.port);
      for (let i = 0; i < 20 && (await whoAnswers(sessions)) === 'second'; i += 1) await sleep(100);
      const after = [];
      for (let i = 0; i < 4; i += 1) after.push(await whoAnswers(sessions));
      expect(after).toEqual(['first', 'first', 'first', 'first']);
    } finally {
      sessions.close();
    }
  });

  it('fails UNAVAILABLE, naming the cause, while the name does not resolve', async () => {
    const sessions = sessionsTo('nowhere.invalid:50051', {
      resolveHost: async () => {
        throw Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.invalid'), { code: 'ENOTFOUND' });
      },
    });
    await expect(whoAnswers(sessions)).rejects.toMatchObject({
      code: GrpcStatus.UNAVAILABLE,
      details: expect.stringContaining('cannot resolve nowhere.invalid: getaddrinfo ENOTFOUND nowhere.invalid'),
    } satisfies Partial<CallFailure>);
    sessions.close();
  });

  it('fails a first call at its deadline while the name is still being resolved', async () => {
    const sessions = sessionsTo('slow-dns.test:50051', {
      resolveHost: () => new Promise((resolve) => setTimeout(() => resolve(['127.0.0.1']), 1_000)),
    });
    const startedAt = Date.now();
    await expect(whoAnswers(sessions, 100)).rejects.toMatchObject({
      code: GrpcStatus.DEADLINE_EXCEEDED,
      details: expect.stringContaining('while resolving slow-dns.test:50051'),
    });
    expect(Date.now() - startedAt).toBeLessThan(800);
    sessions.close();
  });

  it('replaces a connection that stops answering (a frozen or partitioned peer) once a keepalive ping goes unanswered', async () => {
    const frozen = new Set<net.Socket>();
    const sockets: net.Socket[] = [];
    const proxy = net.createServer((socket) => {
      const upstream = net.connect(first.port, '127.0.0.1');
      sockets.push(socket);
      socket.on('data', (chunk) => frozen.has(socket) || upstream.write(chunk));
      upstream.on('data', (chunk) => frozen.has(socket) || socket.write(chunk));
      socket.on('error', () => upstream.destroy());
      socket.on('close', () => upstream.destroy());
      upstream.on('error', () => socket.destroy());
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const sessions = sessionsTo(`127.0.0.1:${(proxy.address() as net.AddressInfo).port}`, {
      keepaliveIntervalMs: 100,
      keepaliveTimeoutMs: 100,
    });
    try {
      expect(await whoAnswers(sessions)).toBe('first');
      // The connection goes silent both ways, as a SIGSTOPped peer's would: no reset, no answer.
      frozen.add(sockets[0]!);
      await sleep(400);
      expect(await whoAnswers(sessions, 1_000)).toBe('first');
      expect(sockets).toHaveLength(2);
    } finally {
      sessions.close();
      for (const socket of sockets) socket.destroy();
      proxy.close();
    }
  });

  it('fails a call at its deadline while the peer accepts the connection and never finishes the handshake, then gives the connection up', async () => {
    const accepted: net.Socket[] = [];
    const silentPeer = net.createServer((socket) => {
      accepted.push(socket);
      socket.resume(); // reads (and ignores) the handshake, and so sees the client close
    });
    await new Promise<void>((resolve) => silentPeer.listen(0, '127.0.0.1', resolve));
    const sessions = sessionsTo(`127.0.0.1:${(silentPeer.address() as net.AddressInfo).port}`, { connectTimeoutMs: 300 });
    try {
      const startedAt = Date.now();
      await expect(whoAnswers(sessions, 200)).rejects.toMatchObject({ code: GrpcStatus.DEADLINE_EXCEEDED });
      expect(Date.now() - startedAt).toBeLessThan(1_000);
      // The connection is given up at its connect timeout…
      const closed = new Promise((resolve) => accepted[0]!.once('close', resolve));
      await closed;
      // …and the next call, within the reconnect backoff, fails at once, saying why.
      await expect(whoAnswers(sessions, 200)).rejects.toMatchObject({
        code: GrpcStatus.UNAVAILABLE,
        details: expect.stringContaining('no TLS handshake with 127.0.0.1'),
      });
    } finally {
      sessions.close();
      for (const socket of accepted) socket.destroy();
      silentPeer.close();
    }
  });

  it('finds a restarted peer again within a few seconds, answering UNAVAILABLE while it is down', async () => {
    let restarted = await startCatalog('restarted', '127.0.0.1');
    const port = restarted.port;
    const client = createServiceClient(catalogV1.CatalogServiceClient, `127.0.0.1:${port}`, gateway, {
      initialBackoffMs: 10,
      maxAttempts: 2,
    });
    try {
      expect((await client.getModel({ modelId: 'm' })).model?.code).toBe('restarted');
      await restarted.shutdown(100);
      await expect(client.getModel({ modelId: 'm' })).rejects.toMatchObject({ code: ErrorCode.UNAVAILABLE });
      restarted = await startCatalog('restarted', '127.0.0.1', port);
      const backAt = Date.now();
      let answer: string | undefined;
      while (!answer && Date.now() - backAt < 5_000) {
        answer = await client.getModel({ modelId: 'm' }).then(
          (response) => response.model?.code,
          () => sleep(50).then(() => undefined),
        );
      }
      expect(answer).toBe('restarted');
      // The reconnect backoff is at most two seconds.
      expect(Date.now() - backAt).toBeLessThan(3_000);
    } finally {
      client.close();
      await restarted.shutdown(100);
    }
  });

  it("cancels a call when its signal aborts: CANCELLED at once, and the handler's signal aborts", async () => {
    const client = createServiceClient(catalogV1.CatalogServiceClient, `127.0.0.1:${first.port}`, gateway);
    try {
      const from = slowSignals.length;
      const controller = new AbortController();
      const call = client.getModel({ modelId: 'slow' }, { signal: controller.signal });
      while (slowSignals.length === from) await sleep(5);
      const abortedAt = Date.now();
      controller.abort();
      await expect(call).rejects.toMatchObject({ code: ErrorCode.CANCELLED });
      expect(Date.now() - abortedAt).toBeLessThan(500);
      for (let waited = 0; !slowSignals[from]!.aborted && waited < 2_000; waited += 10) await sleep(10);
      expect(slowSignals[from]!.aborted).toBe(true);
    } finally {
      client.close();
    }
  });
});

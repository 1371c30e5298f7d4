import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectNats, jetstreamManager } from '@atelier/nats';
import { MobileApi, startTestPlatform, testNatsUrl, waitUntil, type TestPlatform } from '@atelier/testing';
import { testTokenKey } from './test-support/gateway-harness.js';

// Webhooks end to end: the platform as processes (jobs, a worker, provider-sim, webhooks, the
// gateway) on real Postgres and NATS, and an integrator's HTTP receiver on loopback (allowlisted)
// that verifies every signature, fails the first two deliveries and dedupes by webhook-id.

interface Received {
  id: string;
  timestamp: number;
  signatureValid: boolean;
  body: { type: string; timestamp: string; data: { jobId: string; status: string } };
  answered: number;
}

/** Standard Webhooks verification, written from the spec (not with the sender's code). */
function verify(secret: string, id: string, timestamp: string, body: string, header: string): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest();
  return header.split(' ').some((candidate) => {
    const [version, signature] = candidate.split(',');
    if (version !== 'v1' || !signature) return false;
    const given = Buffer.from(signature, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

class Receiver {
  readonly received: Received[] = [];
  secret = '';
  private failuresLeft = 2;
  private server: Server | undefined;
  port = 0;
  /** Set: the next signed request is held unanswered, and this is told it arrived. */
  holdNext: (() => void) | undefined;

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const id = String(request.headers['webhook-id']);
        const timestamp = String(request.headers['webhook-timestamp']);
        const signatureValid = verify(this.secret, id, timestamp, body, String(request.headers['webhook-signature'] ?? ''));
        if (signatureValid && this.holdNext) {
          const arrived = this.holdNext;
          this.holdNext = undefined;
          arrived();
          return; // never answered: the sender dies meanwhile
        }
        const answered = !signatureValid ? 401 : this.failuresLeft > 0 ? 500 : 204;
        if (signatureValid && this.failuresLeft > 0) this.failuresLeft -= 1;
        this.received.push({ id, timestamp: Number(timestamp), signatureValid, body: JSON.parse(body) as Received['body'], answered });
        response.writeHead(answered).end();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server!.address() as AddressInfo).port;
  }

  /** What an integrator processes: each webhook-id once, from its accepted deliveries. */
  deduped(): Received[] {
    const seen = new Map<string, Received>();
    for (const message of this.received) if (message.answered < 300 && !seen.has(message.id)) seen.set(message.id, message);
    return [...seen.values()];
  }

  stop(): Promise<void> {
    this.server?.closeAllConnections();
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

let platform: TestPlatform;
let alice: MobileApi;
let bob: MobileApi;
const receiver = new Receiver();

beforeAll(async () => {
  await receiver.start();
  const tokens = await testTokenKey();
  platform = await startTestPlatform({
    workers: 1,
    providerEnv: { PROVIDER_SIM_LATENCY_MS: '200' },
    webhooks: {
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
      WEBHOOK_RETRY_SCHEDULE_MS: '300,600,1200',
      WEBHOOK_ENDPOINTS_PER_USER: '3',
      WEBHOOK_TIMEOUT_MS: '1000',
      WEBHOOK_LEASE_MS: '4000',
    },
    gateway: tokens.gatewayEnv,
  });
  alice = new MobileApi(platform.gatewayUrl!, await tokens.sign(`alice-webhooks-${process.pid}`));
  bob = alice.as(await tokens.sign(`bob-webhooks-${process.pid}`));
  // The fan-out's durable consumer takes the events published after its creation: wait for it.
  const nc = await connectNats({ servers: testNatsUrl(), name: 'webhooks-e2e' });
  const jsm = await jetstreamManager(nc);
  await waitUntil(
    () =>
      jsm.consumers.info(`${platform.natsPrefix}_JOB_EVENTS`, 'webhooks-fanout').then(
        () => true,
        () => false,
      ),
    { timeoutMs: 20_000, what: 'the webhooks-fanout consumer' },
  );
  await nc.close();
}, 180_000);

afterAll(async () => {
  await platform?.stop();
  await receiver.stop();
});

type Endpoint = { id: string; url: string; eventTypes: string[] };
type Delivery = {
  id: string;
  eventType: string;
  status: string;
  attemptCount: number;
  attempts: { attempt: number; statusCode: number; error: string | null }[];
};
type ErrorBody = { error: { code: number; name: string; message: string } };

describe('webhooks - an integrator called back with the job lifecycle events', () => {
  let endpoint: Endpoint;
  let cancelledOnly: Endpoint;
  let jobId: string;

  it('registers an endpoint and shows its secret once', async () => {
    const created = await alice.call<{ endpoint: Endpoint; secret: string }>('POST', '/api/v1/webhooks/endpoints', {
      body: { url: `http://127.0.0.1:${receiver.port}/hook`, description: 'e2e receiver' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{40,}$/);
    receiver.secret = created.body.secret;
    endpoint = created.body.endpoint;
    const filtered = await alice.call<{ endpoint: Endpoint }>('POST', '/api/v1/webhooks/endpoints', {
      body: { url: `http://127.0.0.1:${receiver.port}/cancelled-only`, eventTypes: ['job.cancelled'] },
    });
    expect(filtered.status).toBe(201);
    cancelledOnly = filtered.body.endpoint;
    const listed = await alice.call<{ items: (Endpoint & { secret?: string })[] }>('GET', '/api/v1/webhooks/endpoints');
    expect(listed.body.items.map((item) => item.id)).toEqual([cancelledOnly.id, endpoint.id]);
    expect(listed.body.items.every((item) => item.secret === undefined)).toBe(true);
    expect((await bob.call<{ items: Endpoint[] }>('GET', '/api/v1/webhooks/endpoints')).body.items).toEqual([]);
  });

  it('delivers each lifecycle event of a job exactly once after dedupe, signed, through failed first attempts', async () => {
    const created = await alice.createJob(await alice.stylizeBody(await alice.uploadPhoto()), `webhooks-${process.pid}`);
    expect(created.status).toBe(201);
    jobId = created.body.job.id;
    expect((await alice.waitTerminal(jobId)).status).toBe('succeeded');

    await waitUntil(() => receiver.deduped().length >= 1, { timeoutMs: 20_000, what: 'an accepted delivery' });
    expect(receiver.received.every((message) => message.signatureValid)).toBe(true);
    // The first two were answered 500: the same webhook-id came again until it was accepted.
    expect(receiver.received.slice(0, 3).map((message) => message.answered)).toEqual([500, 500, 204]);
    expect(new Set(receiver.received.map((message) => message.id)).size).toBe(1);
    const events = receiver.deduped();
    expect(events.map((message) => message.body.type)).toEqual(['job.succeeded']);
    expect(events[0]!.body.data).toMatchObject({ jobId, status: 'succeeded' });
    expect(Math.abs(events[0]!.timestamp - Date.now() / 1000)).toBeLessThan(60);
  });

  it('lists every attempt of a delivery', async () => {
    const list = () =>
      alice.call<{ items: Delivery[]; nextCursor: string | null }>('GET', `/api/v1/webhooks/endpoints/${endpoint.id}/deliveries`);
    // The receiver has answered 204; the sender records the delivery a moment after it hears so.
    await waitUntil(async () => (await list()).body.items[0]?.status === 'delivered', { timeoutMs: 10_000, what: 'the delivery recorded' });
    const page = await list();
    expect(page.status).toBe(200);
    expect(page.body.nextCursor).toBeNull();
    expect(page.body.items).toHaveLength(1);
    const [delivery] = page.body.items;
    expect(delivery).toMatchObject({ id: receiver.received[0]!.id, eventType: 'job.succeeded', status: 'delivered', attemptCount: 3 });
    expect(delivery!.attempts.map((attempt) => [attempt.attempt, attempt.statusCode])).toEqual([
      [1, 500],
      [2, 500],
      [3, 204],
    ]);
    expect(delivery!.attempts[0]!.error).toMatch(/answered 500/);
    // The sender's series count them too.
    const metrics = await (await fetch(`http://127.0.0.1:${platform.webhooks!.metricsPort}/metrics`)).text();
    expect(metrics).toMatch(/^atelier_webhook_attempts_total\{[^}]*outcome="retry"[^}]*\} 2$/m);
    expect(metrics).toMatch(/^atelier_webhook_attempts_total\{[^}]*outcome="delivered"[^}]*\} 1$/m);
    // The filter: an endpoint for job.cancelled only got nothing.
    const none = await alice.call<{ items: Delivery[] }>('GET', `/api/v1/webhooks/endpoints/${cancelledOnly.id}/deliveries`);
    expect(none.body.items).toEqual([]);
    // Another user's endpoint is not found.
    const foreign = await bob.call<ErrorBody>('GET', `/api/v1/webhooks/endpoints/${endpoint.id}/deliveries`);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe(40420);
  });

  it('replays a delivery with the same webhook-id', async () => {
    const deliveryId = receiver.received[0]!.id;
    const before = receiver.received.length;
    expect((await bob.call<ErrorBody>('POST', `/api/v1/webhooks/deliveries/${deliveryId}/replay`)).body.error.code).toBe(40421);
    const replayed = await alice.call<{ delivery: Delivery }>('POST', `/api/v1/webhooks/deliveries/${deliveryId}/replay`);
    expect(replayed.status).toBe(202);
    expect(replayed.body.delivery).toMatchObject({ id: deliveryId, status: 'pending' });
    await waitUntil(() => receiver.received.length > before, { timeoutMs: 10_000, what: 'the replayed delivery' });
    const again = receiver.received.at(-1)!;
    expect(again).toMatchObject({ id: deliveryId, signatureValid: true, answered: 204 });
    expect(receiver.deduped()).toHaveLength(1);
    await waitUntil(
      async () => {
        const page = await alice.call<{ items: Delivery[] }>('GET', `/api/v1/webhooks/endpoints/${endpoint.id}/deliveries`);
        return page.body.items[0]?.status === 'delivered' && page.body.items[0].attemptCount === 4;
      },
      { what: 'the replay recorded as attempt 4' },
    );
  });

  it('delivers an event whose sender was killed mid-POST, once its lease ends, still once after dedupe', async () => {
    const arrived = new Promise<void>((resolve) => (receiver.holdNext = resolve));
    const created = await alice.createJob(await alice.stylizeBody(await alice.uploadPhoto()), `webhooks-crash-${process.pid}`);
    const crashJob = created.body.job.id;
    expect((await alice.waitTerminal(crashJob)).status).toBe('succeeded');
    await arrived;
    await platform.webhooks!.kill();
    await platform.restart('webhooks');
    await waitUntil(() => receiver.deduped().some((message) => message.body.data.jobId === crashJob), {
      timeoutMs: 20_000,
      what: "the crashed sender's delivery, sent again",
    });
    const forJob = receiver.received.filter((message) => message.body.data.jobId === crashJob);
    // The held POST died with its sender (never answered, not counted here); the next one was accepted.
    expect(forJob.map((message) => message.answered)).toEqual([204]);
    expect(new Set(forJob.map((message) => message.id)).size).toBe(1);
    expect(receiver.deduped().map((message) => message.body.data.jobId)).toEqual([jobId, crashJob]);
    // The attempt that died with its sender left no row; the one after the lease is attempt 2.
    const page = await alice.call<{ items: Delivery[] }>('GET', `/api/v1/webhooks/endpoints/${endpoint.id}/deliveries`);
    const delivery = page.body.items.find((item) => item.id === forJob[0]!.id)!;
    expect(delivery).toMatchObject({ status: 'delivered', attemptCount: 2 });
    expect(delivery.attempts.map((attempt) => [attempt.attempt, attempt.statusCode])).toEqual([[2, 204]]);
  });

  it.each(['https://localhost/hook', 'https://10.0.0.7/hook', 'https://169.254.169.254/latest/meta-data', 'https://[::1]/hook'])(
    'refuses %s: not a public address and not allowlisted',
    async (url) => {
      const refused = await bob.call<ErrorBody>('POST', '/api/v1/webhooks/endpoints', { body: { url } });
      expect(refused.status, JSON.stringify(refused.body)).toBe(422);
      expect(refused.body.error).toMatchObject({ code: 42220, name: 'WEBHOOK_URL_NOT_ALLOWED' });
      expect(refused.body.error.message).toMatch(/WEBHOOK_ALLOWED_HOSTS/);
    },
  );

  it('refuses plain http to a host that is not allowlisted, unknown event types, and endpoints past the limit', async () => {
    const http = await bob.call<ErrorBody>('POST', '/api/v1/webhooks/endpoints', { body: { url: 'http://hooks.partner.example/x' } });
    expect(http.status).toBe(400);
    const unknown = await bob.call<ErrorBody>('POST', '/api/v1/webhooks/endpoints', {
      body: { url: `http://127.0.0.1:${receiver.port}/x`, eventTypes: ['job.created'] },
    });
    expect(unknown.status).toBe(400);
    for (let i = 0; i < 3; i += 1) {
      const created = await bob.call('POST', '/api/v1/webhooks/endpoints', { body: { url: `http://127.0.0.1:${receiver.port}/b${i}` } });
      expect(created.status).toBe(201);
    }
    const over = await bob.call<ErrorBody>('POST', '/api/v1/webhooks/endpoints', { body: { url: `http://127.0.0.1:${receiver.port}/b3` } });
    expect(over.status).toBe(409);
    expect(over.body.error).toMatchObject({ code: 40920, name: 'WEBHOOK_ENDPOINT_LIMIT' });
    const first = (await bob.call<{ items: Endpoint[] }>('GET', '/api/v1/webhooks/endpoints')).body.items[0]!;
    expect((await bob.call('DELETE', `/api/v1/webhooks/endpoints/${first.id}`)).status).toBe(200);
    expect((await bob.call('DELETE', `/api/v1/webhooks/endpoints/${first.id}`)).status).toBe(404);
  });
});

// The documented NATS server configuration (charts/atelier/nats/nats-server.conf.example) on a real
// nats-server: each service's user can do what its code does — declare its streams, consumers or
// bucket, publish its subjects, pull and ack, hear catalog's change notices — and is denied
// publishing subjects another service owns; a client without credentials, or with a wrong
// password, is refused.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  catalogChangesSubject,
  connectNats,
  ensureAccountDeletionConsumer,
  ensureAccountEventsStream,
  ensureControlConsumer,
  ensureEventsConsumer,
  ensureJobStreams,
  ensureProductEventsStream,
  ensureOpsEventsStream,
  ensureWorkerConsumer,
  jetstream,
  jetstreamManager,
  jobsTopology,
  parseCatalogChange,
  publishCatalogChange,
  WindowCounters,
  windowCountersBucket,
  type NatsConnection,
} from '@atelier/nats';
import { AckPolicy, DeliverPolicy } from '@nats-io/jetstream';
import { PRODUCT_EVENT_NAMES, type ProductEventName } from '@atelier/outbox';
import { startNatsServer, type NatsServerProcess } from '@atelier/testing';
import { repoRoot } from './helm.js';

const SERVICES = ['catalog', 'jobs', 'media', 'community', 'worker', 'webhooks', 'gateway', 'ops', 'product-bridge'] as const;
type Service = (typeof SERVICES)[number];
const password = (service: Service) => `test-only-${service}-password`;
/** The variable the documented file reads a user's password from: `$PRODUCT_BRIDGE_NATS_PASSWORD` … */
const passwordVariable = (service: Service) => `${service.toUpperCase().replaceAll('-', '_')}_NATS_PASSWORD`;
const topology = jobsTopology('ATELIER');

let server: NatsServerProcess;
let directory: string;
const connections: NatsConnection[] = [];

beforeAll(async () => {
  directory = mkdtempSync(path.join(tmpdir(), 'atelier-nats-config-'));
  // The file as documented, minus the monitoring port (a test must not take 8222) and the store
  // (startNatsServer gives the server a folder of its own).
  const documented = readFileSync(path.join(repoRoot, 'charts/atelier/nats/nats-server.conf.example'), 'utf8');
  const configFile = path.join(directory, 'nats-server.conf');
  writeFileSync(configFile, documented.replace(/^http: .*$/m, '').replace(/^\s*store_dir: .*$/m, ''));
  server = await startNatsServer({
    configFile,
    env: Object.fromEntries(SERVICES.map((service) => [passwordVariable(service), password(service)])),
  });
}, 30_000);

afterAll(async () => {
  for (const connection of connections) await connection.close().catch(() => {});
  await server?.close();
  rmSync(directory, { recursive: true, force: true });
});

async function as(service: Service): Promise<NatsConnection> {
  const connection = await connectNats({
    servers: server.url,
    name: `${service}-permissions-test`,
    credentials: { NATS_USER: `atelier-${service}`, NATS_PASSWORD: password(service) },
  });
  connections.push(connection);
  return connection;
}

/** A JetStream publish (a request: the server's refusal comes back as its error). */
const publish = (connection: NatsConnection, subject: string) => jetstream(connection, { timeout: 2_000 }).publish(subject, '{}');

describe('nats server config - who may log in', () => {
  it('refuses a client without credentials, and one with a wrong password', async () => {
    await expect(connectNats({ servers: server.url, name: 'anonymous' })).rejects.toThrow(/auth/i);
    await expect(
      connectNats({ servers: server.url, name: 'guess', credentials: { NATS_USER: 'atelier-jobs', NATS_PASSWORD: 'guess' } }),
    ).rejects.toThrow(/auth/i);
  });
});

describe('nats server config - each service its own subjects', () => {
  it('jobs declares the streams and publishes dispatches, control tasks and lifecycle events', async () => {
    const jobs = await as('jobs');
    await ensureJobStreams(await jetstreamManager(jobs), topology);
    for (const subject of [
      topology.dispatchSubject('interactive'),
      topology.controlSubject('provider-cancel'),
      topology.eventSubject('failed'),
    ]) {
      await expect(publish(jobs, subject), subject).resolves.toMatchObject({ duplicate: false });
    }
    // jobs has no business with the gateway's counters.
    await expect(publish(jobs, `$KV.${windowCountersBucket('ATELIER')}.user.x.1`)).rejects.toThrow(/permission/i);
  });

  it('jobs declares the ops events stream and publishes the budget warning; no one else publishes it', async () => {
    const jobs = await as('jobs');
    await ensureOpsEventsStream(await jetstreamManager(jobs), topology);
    const subject = topology.opsEventSubject('provider_budget_warning');
    await expect(publish(jobs, subject)).resolves.toMatchObject({ duplicate: false });
    for (const service of ['worker', 'gateway'] as const)
      await expect(publish(await as(service), subject), service).rejects.toThrow(/permission/i);
  });

  it('catalog announces its changes, which jobs hears, and may publish nothing else', async () => {
    const catalog = await as('catalog');
    const jobs = await as('jobs');
    const subject = catalogChangesSubject('ATELIER');
    const heard: unknown[] = [];
    jobs.subscribe(subject, { callback: (_error, message) => void heard.push(parseCatalogChange(message.data)) });
    await jobs.flush();
    publishCatalogChange(catalog, subject, { kind: 'model', id: 'm-1' });
    await expect.poll(() => heard).toEqual([{ kind: 'model', id: 'm-1' }]);

    // A core publish the server refuses comes back as an async permissions error on the connection.
    const refusals: string[] = [];
    void (async () => {
      for await (const status of catalog.status()) if (status.type === 'error') refusals.push(String(status.error));
    })();
    catalog.publish(topology.dispatchSubject('interactive'), '{}');
    await catalog.flush().catch(() => undefined);
    await expect.poll(() => refusals.join(' ')).toMatch(/permission/i);
    for (const subject of [topology.eventSubject('failed'), `$KV.${windowCountersBucket('ATELIER')}.user.x.1`]) {
      await expect(publish(catalog, subject), subject).rejects.toThrow(/permission/i);
    }
    // Nobody else may pretend to be catalog.
    await expect(publish(jobs, subject)).rejects.toThrow(/permission/i);
  });

  it('the worker declares its consumers, pulls and acks a dispatch, hears cancellations, and may publish no platform subject', async () => {
    const worker = await as('worker');
    const jsm = await jetstreamManager(worker);
    await ensureJobStreams(jsm, topology);
    for (const queue of ['interactive', 'background'] as const)
      await ensureWorkerConsumer(jsm, topology, queue, { ackWaitMs: 30_000, maxDeliver: 5 });
    await ensureControlConsumer(jsm, topology, 'provider-cancel', { ackWaitMs: 30_000, maxDeliver: -1 });
    const consumer = await jetstream(worker).consumers.get(topology.jobsStream, topology.consumerName('interactive'));
    await publish(await as('jobs'), topology.dispatchSubject('interactive'));
    const messages = await consumer.fetch({ max_messages: 1, expires: 3_000 });
    let acked = 0;
    for await (const message of messages) {
      await message.ackAck();
      acked += 1;
    }
    expect(acked).toBe(1);

    const heard: string[] = [];
    worker.subscribe(topology.eventSubject('cancelled'), { callback: (_error, message) => void heard.push(message.subject) });
    await worker.flush();
    await publish(await as('jobs'), topology.eventSubject('cancelled'));
    await expect.poll(() => heard).toEqual([topology.eventSubject('cancelled')]);

    for (const subject of [
      topology.dispatchSubject('background'),
      topology.eventSubject('succeeded'),
      topology.controlSubject('provider-cancel'),
    ]) {
      await expect(publish(worker, subject), subject).rejects.toThrow(/permission/i);
    }
  });

  it('media declares its cleanup consumers and pulls events, and may not publish a lifecycle event', async () => {
    const media = await as('media');
    const jsm = await jetstreamManager(media);
    await ensureJobStreams(jsm, topology);
    for (const state of ['failed', 'cancelled']) {
      await ensureEventsConsumer(jsm, topology, {
        name: `media-output-cleanup-${state}`,
        filterSubject: topology.eventSubject(state),
        ackWaitMs: 30_000,
        maxDeliver: -1,
      });
    }
    await publish(await as('jobs'), topology.eventSubject('failed'));
    const consumer = await jetstream(media).consumers.get(topology.eventsStream, 'media-output-cleanup-failed');
    const messages = await consumer.fetch({ max_messages: 1, expires: 3_000 });
    let acked = 0;
    for await (const message of messages) {
      await message.ackAck();
      acked += 1;
    }
    expect(acked).toBe(1);
    // Only its own consumers: it cannot create one that would read the dispatches.
    await expect(ensureWorkerConsumer(jsm, topology, 'interactive', { ackWaitMs: 1_000, maxDeliver: 1 })).rejects.toThrow(/permission/i);
    await expect(publish(media, topology.eventSubject('failed'))).rejects.toThrow(/permission/i);
  });

  it('jobs publishes account deletions, and jobs, media, community and webhooks each pull theirs; no one else publishes one', async () => {
    const jobs = await as('jobs');
    await ensureAccountEventsStream(await jetstreamManager(jobs), topology);
    const consumers = [];
    for (const service of ['jobs', 'media', 'community', 'webhooks'] as const) {
      const connection = service === 'jobs' ? jobs : await as(service);
      const jsm = await jetstreamManager(connection);
      await ensureAccountEventsStream(jsm, topology);
      const name = await ensureAccountDeletionConsumer(jsm, topology, { service, ackWaitMs: 30_000 });
      consumers.push(await jetstream(connection).consumers.get(topology.accountEventsStream, name));
    }
    await expect(publish(jobs, topology.accountDeletedSubject)).resolves.toMatchObject({ duplicate: false });
    for (const consumer of consumers) {
      let acked = 0;
      for await (const message of await consumer.fetch({ max_messages: 1, expires: 3_000 })) {
        await message.ackAck();
        acked += 1;
      }
      expect(acked).toBe(1);
    }
    for (const service of ['media', 'community', 'webhooks', 'worker'] as const) {
      await expect(publish(await as(service), topology.accountDeletedSubject), service).rejects.toThrow(/permission/i);
    }
    // Community reads account events only: not the dispatches, not the lifecycle events.
    await expect(
      ensureWorkerConsumer(await jetstreamManager(await as('community')), topology, 'interactive', { ackWaitMs: 1_000, maxDeliver: 1 }),
    ).rejects.toThrow(/permission/i);
  });

  it('webhooks declares its fan-out consumer of every lifecycle event and pulls it, and may not publish one', async () => {
    const webhooks = await as('webhooks');
    const jsm = await jetstreamManager(webhooks);
    await ensureJobStreams(jsm, topology);
    await ensureEventsConsumer(jsm, topology, {
      name: 'webhooks-fanout',
      filterSubject: topology.allEventsSubject,
      ackWaitMs: 30_000,
      maxDeliver: -1,
    });
    await publish(await as('jobs'), topology.eventSubject('succeeded'));
    const consumer = await jetstream(webhooks).consumers.get(topology.eventsStream, 'webhooks-fanout');
    const messages = await consumer.fetch({ max_messages: 1, expires: 3_000 });
    let acked = 0;
    for await (const message of messages) {
      await message.ackAck();
      acked += 1;
    }
    expect(acked).toBe(1);
    await expect(ensureWorkerConsumer(jsm, topology, 'interactive', { ackWaitMs: 1_000, maxDeliver: 1 })).rejects.toThrow(/permission/i);
    await expect(publish(webhooks, topology.eventSubject('succeeded'))).rejects.toThrow(/permission/i);
  });

  it('the gateway keeps its rate-limit counters and may publish nothing of the jobs', async () => {
    const gateway = await as('gateway');
    const counters = await WindowCounters.open(gateway, { bucket: windowCountersBucket('ATELIER'), maxAgeMs: 120_000, timeoutMs: 2_000 });
    await expect(counters.reserve('user.abc.1', () => 3, 10)).resolves.toEqual({ granted: 3, count: 3 });
    await expect(counters.reserve('user.abc.1', () => 3, 10)).resolves.toEqual({ granted: 3, count: 6 });
    for (const subject of [topology.dispatchSubject('interactive'), topology.eventSubject('failed')]) {
      await expect(publish(gateway, subject), subject).rejects.toThrow(/permission/i);
    }
  });

  it('jobs, media and community declare the product events stream and each publishes its own product events only; the bridge pulls them', async () => {
    const owners: Record<'jobs' | 'media' | 'community', readonly ProductEventName[]> = {
      jobs: ['creation_job_submitted', 'creation_job_succeeded', 'creation_job_failed', 'creation_job_cancelled'],
      media: ['creation_upload_completed'],
      community: ['creation_draft_created', 'creation_post_published'],
    };
    expect(Object.values(owners).flat().sort()).toEqual([...PRODUCT_EVENT_NAMES].sort());
    for (const [service, names] of Object.entries(owners) as ['jobs' | 'media' | 'community', readonly ProductEventName[]][]) {
      const connection = await as(service);
      await ensureProductEventsStream(await jetstreamManager(connection), topology);
      for (const name of PRODUCT_EVENT_NAMES) {
        const subject = topology.productEventSubject(name);
        if (names.includes(name))
          await expect(publish(connection, subject), `${service} ${name}`).resolves.toMatchObject({ duplicate: false });
        else await expect(publish(connection, subject), `${service} ${name}`).rejects.toThrow(/permission/i);
      }
    }
    for (const service of ['worker', 'webhooks', 'gateway', 'catalog', 'product-bridge'] as const) {
      await expect(publish(await as(service), topology.productEventSubject('creation_job_succeeded')), service).rejects.toThrow(
        /permission/i,
      );
    }

    // The product team's bridge reads the stream through its own durable consumer, and nothing else.
    const bridge = await as('product-bridge');
    const jsm = await jetstreamManager(bridge);
    await jsm.consumers.add(topology.productEventsStream, {
      durable_name: 'product-events-bridge',
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
    });
    const consumer = await jetstream(bridge).consumers.get(topology.productEventsStream, 'product-events-bridge');
    let acked = 0;
    for await (const message of await consumer.fetch({ max_messages: PRODUCT_EVENT_NAMES.length, expires: 3_000 })) {
      await message.ackAck();
      acked += 1;
    }
    expect(acked).toBe(PRODUCT_EVENT_NAMES.length);
    await expect(
      jsm.consumers.add(topology.productEventsStream, { durable_name: 'another', ack_policy: AckPolicy.Explicit }),
    ).rejects.toThrow(/permission/i);
    await expect(ensureWorkerConsumer(jsm, topology, 'interactive', { ackWaitMs: 1_000, maxDeliver: 1 })).rejects.toThrow(/permission/i);
  });

  it('atelier-ops reads the worker consumers and writes nothing', async () => {
    const ops = await as('ops');
    const jsm = await jetstreamManager(ops);
    await expect(jsm.consumers.info(topology.jobsStream, topology.consumerName('background'))).resolves.toMatchObject({
      name: topology.consumerName('background'),
    });
    await expect(publish(ops, topology.dispatchSubject('interactive'))).rejects.toThrow(/permission/i);
  });
});

import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createSqlPool, inTransaction, type SqlPool } from '@atelier/db';
import { createLogger } from '@atelier/logging';
import {
  connectNats,
  deleteJobStreams,
  ensureProductEventsStream,
  jetstream,
  jetstreamManager,
  jobsTopology,
  type JetStreamClient,
  type NatsConnection,
  type PubAck,
} from '@atelier/nats';
import { createTestDatabase, natsTestPrefix, startNatsServer, testNatsUrl, waitUntil, type TestDatabase } from '@atelier/testing';
import { claimDueOutboxRows, insertOutboxEvents, type OutboxEvent } from './outbox-sql.js';
import { outboxTableSql } from './outbox-table.js';
import { OutboxRelay, type OutboxRelayOptions } from './outbox-relay.js';

// The relay of libs/outbox against a real Postgres and a real NATS JetStream: a write is published
// once it commits and never when it rolls back, a broker outage is waited out without spending
// attempts, a row published twice (a relay died between publishing and recording it) is one
// message, and relays running side by side never publish one row twice.

const SCHEMA = 'relay_test';
const logger = createLogger({ service: 'outbox-relay-test', level: process.env.TEST_LOG_LEVEL ?? 'silent' });
const topology = jobsTopology(natsTestPrefix());
let database: TestDatabase;
let pool: SqlPool;
let nats: NatsConnection;
const pools: SqlPool[] = [];
const relays: OutboxRelay[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  pool = createSqlPool({ databaseUrl: database.url, applicationName: 'outbox-relay-test' });
  await pool.query(`CREATE SCHEMA ${SCHEMA}`);
  for (const statement of outboxTableSql(SCHEMA)) await pool.query(statement);
  nats = await connectNats({ servers: testNatsUrl(), name: 'outbox-relay-test' });
  await ensureProductEventsStream(await jetstreamManager(nats), topology);
}, 60_000);

afterAll(async () => {
  await Promise.all(relays.map((relay) => relay.stop()));
  await Promise.all(pools.map((p) => p.end()));
  await deleteJobStreams(await jetstreamManager(nats), topology);
  await nats?.close();
  await pool?.end();
  await database?.drop();
});

beforeEach(async () => {
  await Promise.all(relays.splice(0).map((relay) => relay.stop()));
  await pool.query(`DELETE FROM ${SCHEMA}.outbox`);
});

/** Counts each publish by its Nats-Msg-Id, with JetStream's answer. */
function countingBroker(js: () => JetStreamClient | undefined) {
  const publishes = new Map<string, PubAck[]>();
  const broker = () => {
    const client = js();
    if (!client) return undefined;
    return {
      publish: async (subject: string, data: string, options: { msgID: string }) => {
        const ack = await client.publish(subject, data, options);
        publishes.set(options.msgID, [...(publishes.get(options.msgID) ?? []), ack]);
        return ack;
      },
    } as unknown as JetStreamClient;
  };
  return { broker, publishes };
}

function startRelay(relayId: string, options: Partial<OutboxRelayOptions> = {}): OutboxRelay {
  const relayPool = createSqlPool({ databaseUrl: database.url, applicationName: relayId });
  pools.push(relayPool);
  const relay = new OutboxRelay({
    pool: relayPool,
    databaseUrl: database.url,
    schema: SCHEMA,
    broker: () => jetstream(nats),
    declareStreams: async () => ensureProductEventsStream(await jetstreamManager(nats), topology),
    logger,
    relayId,
    pollIntervalMs: 200,
    ...options,
  });
  relays.push(relay);
  void relay.start();
  return relay;
}

let seq = 0;
function event(subject = topology.productEventSubject('creation_job_submitted')): OutboxEvent {
  const aggregateId = randomUUID();
  seq += 1;
  return {
    aggregateId,
    eventType: 'creation_job_submitted',
    subject,
    dedupeKey: `creation_job_submitted:${aggregateId}`,
    payload: { eventId: `creation_job_submitted:${aggregateId}`, seq },
  };
}

const write = (events: readonly OutboxEvent[]) => inTransaction(pool, (client) => insertOutboxEvents(client, SCHEMA, events));

async function rowsOf(events: readonly OutboxEvent[]) {
  const { rows } = await pool.query<{ dedupe_key: string; status: string; attempt_count: number; last_error: string | null }>(
    `SELECT dedupe_key, status, attempt_count, last_error FROM ${SCHEMA}.outbox WHERE dedupe_key = ANY($1) ORDER BY id`,
    [events.map((e) => e.dedupeKey)],
  );
  return rows;
}

const allPublished = async (events: readonly OutboxEvent[]) =>
  (await rowsOf(events)).filter((r) => r.status === 'published').length === events.length;

async function streamMessages(connection = nats): Promise<number> {
  return (await (await jetstreamManager(connection)).streams.info(topology.productEventsStream)).state.messages;
}

describe('outbox relay - writes', () => {
  it('publishes a committed write at once, woken by the NOTIFY of its commit, as JSON with Nats-Msg-Id = its key; a rolled-back write never', async () => {
    // Polls once a minute: only the commit's NOTIFY can make it publish within the wait below.
    startRelay('woken', { pollIntervalMs: 60_000 });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const rolledBack = event();
    await expect(
      inTransaction(pool, async (client) => {
        await insertOutboxEvents(client, SCHEMA, [rolledBack]);
        throw new Error('the fact failed');
      }),
    ).rejects.toThrow('the fact failed');
    const committed = event();
    const before = await streamMessages();
    await write([committed]);
    await waitUntil(() => allPublished([committed]), { timeoutMs: 5_000 });
    expect(await rowsOf([rolledBack])).toEqual([]);
    expect(await streamMessages()).toBe(before + 1);
    const message = await (
      await jetstreamManager(nats)
    ).streams.getMessage(topology.productEventsStream, {
      last_by_subj: committed.subject,
    });
    expect(message!.header.get('Nats-Msg-Id')).toBe(committed.dedupeKey);
    expect(message!.json()).toEqual(committed.payload);
  });

  it('writes one row per key: the same fact again writes nothing', async () => {
    const once = event();
    expect(await write([once])).toBe(1);
    expect(await write([once, once])).toBe(0);
    expect(await rowsOf([once])).toHaveLength(1);
  });
});

describe('outbox relay - exactly once in the dedupe sense', () => {
  it('never publishes one row twice with three relays on the same outbox', async () => {
    const { broker, publishes } = countingBroker(() => jetstream(nats));
    const events = Array.from({ length: 200 }, () => event());
    const before = await streamMessages();
    await write(events);
    for (const name of ['relay-a', 'relay-b', 'relay-c']) startRelay(name, { batchSize: 10, broker });
    await waitUntil(() => allPublished(events), { timeoutMs: 20_000 });
    expect(await streamMessages()).toBe(before + 200);
    // Each row was claimed by one relay and published by it once.
    expect(publishes.size).toBe(200);
    expect([...publishes.values()].every((acks) => acks.length === 1)).toBe(true);
  });

  it('publishes again a row whose relay died between publishing and recording it, and JetStream keeps one copy', async () => {
    const orphan = event();
    await write([orphan]);
    const [claimed] = await claimDueOutboxRows(pool, SCHEMA, 'relay-that-dies', 10);
    expect(claimed!.dedupe_key).toBe(orphan.dedupeKey);
    const before = await streamMessages();
    await jetstream(nats).publish(claimed!.subject, JSON.stringify(claimed!.payload), { msgID: claimed!.dedupe_key });
    // The relay died here: the row stays claimed until its lock expires.
    const { broker, publishes } = countingBroker(() => jetstream(nats));
    startRelay('survivor', { lockTimeoutMs: 1_000, broker });
    await waitUntil(() => allPublished([orphan]), { timeoutMs: 10_000 });
    expect(publishes.get(orphan.dedupeKey)!.map((ack) => ack.duplicate)).toEqual([true]);
    expect(await streamMessages()).toBe(before + 1);
    // The broker never refused it: a relay that dies costs the row no attempt.
    expect((await rowsOf([orphan]))[0]).toMatchObject({ attempt_count: 0 });
  });
});

describe('outbox relay - the broker', () => {
  it('waits out a broker that is down without spending any attempt, and publishes every row once when it is back', async () => {
    const broker = await startNatsServer();
    const connection = await connectNats({ servers: broker.url, name: 'outbox-relay-outage-test' });
    try {
      await ensureProductEventsStream(await jetstreamManager(connection), topology);
      startRelay('outage', {
        broker: () => jetstream(connection),
        declareStreams: async () => ensureProductEventsStream(await jetstreamManager(connection), topology),
        publishTimeoutMs: 300,
        maxAttempts: 2,
      });
      // The relay publishes; then the broker goes away under it.
      const before = [event()];
      await write(before);
      await waitUntil(() => allPublished(before), { timeoutMs: 10_000 });
      await broker.kill();
      const events = [event(), event(), event()];
      await write(events);
      await waitUntil(async () => (await rowsOf(events)).every((row) => row.last_error?.startsWith('not published yet')), {
        timeoutMs: 10_000,
      });
      await new Promise((resolve) => setTimeout(resolve, 2_000)); // several more cycles of the outage
      expect((await rowsOf(events)).map((row) => [row.status, row.attempt_count])).toEqual([
        ['pending', 0],
        ['pending', 0],
        ['pending', 0],
      ]);
      await broker.start();
      await waitUntil(() => allPublished(events), { timeoutMs: 20_000 });
      expect((await rowsOf(events)).map((row) => row.attempt_count)).toEqual([0, 0, 0]);
      // A publish that timed out may have reached the broker all the same: its copy was dropped.
      expect(await streamMessages(connection)).toBe(1 + 3);
    } finally {
      await connection.close().catch(() => {});
      await broker.close();
    }
  }, 60_000);

  it('backs off a row the broker refuses, and marks it dead after the attempts: no stream takes its subject', async () => {
    startRelay('refused', { maxAttempts: 2, retryBaseMs: 50, retryMaxMs: 100 });
    const lost = event(`${topology.productEventSubject('x').replace('.product.events.x', '')}.nowhere.at.all`);
    await write([lost]);
    await waitUntil(async () => (await rowsOf([lost]))[0]?.status === 'dead', { timeoutMs: 10_000 });
    expect((await rowsOf([lost]))[0]).toMatchObject({
      attempt_count: 2,
      last_error: expect.stringContaining('no JetStream stream takes subject'),
    });
  });

  it('declares its streams again when they vanished, before counting anything against a row', async () => {
    const relay = startRelay('restorer');
    await (await jetstreamManager(nats)).streams.delete(topology.productEventsStream);
    const afterLoss = event();
    await write([afterLoss]);
    await waitUntil(() => allPublished([afterLoss]), { timeoutMs: 10_000 });
    expect((await rowsOf([afterLoss]))[0]).toMatchObject({ attempt_count: 0 });
    await relay.stop();
  });
});

describe('outbox relay - housekeeping and stopping', () => {
  it('deletes published rows past their retention', async () => {
    startRelay('pruner', { lockTimeoutMs: 1_000, retainPublishedMs: 1 });
    const gone = event();
    await write([gone]);
    await waitUntil(async () => (await rowsOf([gone])).length === 0, { timeoutMs: 10_000 });
  });

  it('stops at once while it sleeps, and publishes nothing after', async () => {
    const relay = startRelay('stopper', { pollIntervalMs: 60_000 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const startedAt = Date.now();
    await relay.stop();
    expect(Date.now() - startedAt).toBeLessThan(1_000);
    const after = event();
    await write([after]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await rowsOf([after]))[0]).toMatchObject({ status: 'pending' });
  });
});

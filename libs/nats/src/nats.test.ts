import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { natsTestPrefix, testNatsUrl } from '@atelier/testing';
import {
  connectNats,
  deleteJobStreams,
  ensureJobStreams,
  ensureWorkerConsumer,
  jetstream,
  jetstreamManager,
  jobsTopology,
  type JetStreamManager,
  type NatsConnection,
} from './index.js';

const topology = jobsTopology(natsTestPrefix());
let nc: NatsConnection;
let jsm: JetStreamManager;

beforeAll(async () => {
  nc = await connectNats({ servers: testNatsUrl(), name: 'nats-test' });
  jsm = await jetstreamManager(nc);
});

afterAll(async () => {
  await deleteJobStreams(jsm, topology);
  await nc.close();
});

describe('nats - topology', () => {
  it('derives every name from the prefix', () => {
    const t = jobsTopology('ATELIER');
    expect(t.jobsStream).toBe('ATELIER_JOBS');
    expect(t.eventsStream).toBe('ATELIER_JOB_EVENTS');
    expect(t.dispatchSubject('interactive')).toBe('atelier.jobs.dispatch.interactive');
    expect(t.eventSubject('succeeded')).toBe('atelier.jobs.events.succeeded');
    expect(t.consumerName('background')).toBe('worker-background');
    expect(() => jobsTopology('bad prefix')).toThrow(/NATS stream prefix/);
  });
});

describe('nats - streams declared in code', () => {
  it('creates both streams idempotently, a work queue and a limits stream', async () => {
    await ensureJobStreams(jsm, topology);
    await ensureJobStreams(jsm, topology);
    const jobs = await jsm.streams.info(topology.jobsStream);
    expect(jobs.config.retention).toBe('workqueue');
    expect(jobs.config.storage).toBe('file');
    expect(jobs.config.duplicate_window).toBeGreaterThanOrEqual(120 * 1e9);
    expect((await jsm.streams.info(topology.eventsStream)).config.retention).toBe('limits');
  });

  it('drops a republished message with the same Nats-Msg-Id', async () => {
    const js = jetstream(nc);
    const subject = topology.dispatchSubject('background');
    const first = await js.publish(subject, '{"job_id":"a"}', { msgID: 'dispatch:a:1' });
    const again = await js.publish(subject, '{"job_id":"a"}', { msgID: 'dispatch:a:1' });
    expect(first.duplicate).toBe(false);
    expect(again.duplicate).toBe(true);
    expect((await jsm.streams.info(topology.jobsStream)).state.messages).toBe(1);
  });

  it('creates the durable worker consumers idempotently and removes a work-queue message on ack', async () => {
    for (const queue of ['interactive', 'background'] as const) {
      await ensureWorkerConsumer(jsm, topology, queue, { ackWaitMs: 30_000, maxDeliver: 5 });
      await ensureWorkerConsumer(jsm, topology, queue, { ackWaitMs: 60_000, maxDeliver: 5 });
    }
    const info = await jsm.consumers.info(topology.jobsStream, 'worker-background');
    expect(info.config.ack_wait).toBe(60_000 * 1e6);
    expect(info.config.filter_subject).toBe(topology.dispatchSubject('background'));

    const consumer = await jetstream(nc).consumers.get(topology.jobsStream, 'worker-background');
    const messages = await consumer.fetch({ max_messages: 1, expires: 2000 });
    for await (const message of messages) {
      expect(message.json()).toEqual({ job_id: 'a' });
      await message.ackAck();
    }
    expect((await jsm.streams.info(topology.jobsStream)).state.messages).toBe(0);
  });
});

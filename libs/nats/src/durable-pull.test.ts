import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { natsTestPrefix, testNatsUrl } from '@atelier/testing';
import {
  connectNats,
  deleteJobStreams,
  ensureEventsConsumer,
  ensureJobStreams,
  jetstream,
  jetstreamManager,
  jobsTopology,
  startDurablePull,
  type NatsConnection,
} from './index.js';

const topology = jobsTopology(natsTestPrefix());
const silent = { warn: () => {} };
let nc: NatsConnection;

beforeAll(async () => {
  nc = await connectNats({ servers: testNatsUrl(), name: 'durable-pull-test' });
});

afterAll(async () => {
  await deleteJobStreams(await jetstreamManager(nc), topology);
  await nc.close();
});

async function until(check: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('durable pull', () => {
  it('goes on delivering after its stream and consumer are deleted and declared again', async () => {
    const jsm = await jetstreamManager(nc);
    const declare = async () => {
      await ensureJobStreams(jsm, topology);
      await ensureEventsConsumer(jsm, topology, {
        name: 'pull-test',
        filterSubject: topology.allEventsSubject,
        ackWaitMs: 5_000,
        maxDeliver: 5,
      });
    };
    await declare();
    const received: string[] = [];
    const pull = await startDurablePull({
      js: jetstream(nc),
      stream: topology.eventsStream,
      consumer: 'pull-test',
      maxMessages: 8,
      declare,
      logger: silent,
      handle: async (message) => {
        received.push(message.string());
        message.ack();
      },
    });
    const js = jetstream(nc);
    await js.publish(topology.eventSubject('succeeded'), 'before');
    await until(() => received.includes('before'));

    await jsm.streams.delete(topology.eventsStream);
    // Publish until the pull, declared again after its pause, receives one. The consumer delivers
    // only messages newer than itself, and the pull declares the stream just before the
    // consumer, so an 'after' that lands in between is rightly never delivered: publish again.
    await until(async () => {
      await js.publish(topology.eventSubject('succeeded'), 'after').catch(() => undefined);
      return received.includes('after');
    }, 30_000);
    await pull.stop();
    expect(received[0]).toBe('before');
    expect(new Set(received.slice(1))).toEqual(new Set(['after']));
  });

  it('restarted, pulls again from its consumer declared anew by someone else, without declaring', async () => {
    const jsm = await jetstreamManager(nc);
    const declareConsumer = () =>
      ensureEventsConsumer(jsm, topology, {
        name: 'restart-test',
        filterSubject: topology.allEventsSubject,
        ackWaitMs: 5_000,
        maxDeliver: 5,
      });
    await ensureJobStreams(jsm, topology);
    await declareConsumer();
    let declared = 0;
    const received: string[] = [];
    const pull = await startDurablePull({
      js: jetstream(nc),
      stream: topology.eventsStream,
      consumer: 'restart-test',
      maxMessages: 8,
      declare: async () => {
        declared += 1;
      },
      logger: silent,
      handle: async (message) => {
        received.push(message.string());
        message.ack();
      },
    });
    // The consumer replaced behind the pull's back (as when a stream goes and another pull of the
    // process declares everything again): the pull is told to restart.
    await jsm.consumers.delete(topology.eventsStream, 'restart-test');
    await declareConsumer();
    pull.restart();
    const js = jetstream(nc);
    await until(async () => {
      await js.publish(topology.eventSubject('succeeded'), 'after restart');
      return received.includes('after restart');
    }, 20_000);
    await pull.stop();
    expect(declared).toBe(0);
  });
});

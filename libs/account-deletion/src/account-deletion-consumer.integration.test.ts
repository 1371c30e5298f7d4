import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  connectNats,
  deleteJobStreams,
  ensureAccountEventsStream,
  jetstream,
  jetstreamManager,
  jobsTopology,
  type NatsConnection,
} from '@atelier/nats';
import { natsTestPrefix, testNatsUrl, waitUntil } from '@atelier/testing';
import { encodeAccountDeleted, type AccountDeleted } from './account-deleted-event.js';
import { AccountDeletionConsumer, followAccountDeletions } from './account-deletion-consumer.js';

const topology = jobsTopology(natsTestPrefix());
let nc: NatsConnection;
let consumer: AccountDeletionConsumer | undefined;

beforeAll(async () => {
  nc = await connectNats({ servers: testNatsUrl(), name: 'account-deletion-consumer-test' });
  await ensureAccountEventsStream(await jetstreamManager(nc), topology);
});

afterAll(async () => {
  await consumer?.stop();
  await deleteJobStreams(await jetstreamManager(nc), topology);
  await nc.close();
});

const logger = () => ({ info: vi.fn(), warn: vi.fn(), error: vi.fn() });

describe('AccountDeletionConsumer', () => {
  it('hands each event published, before it existed too, to the service; drops a corrupt one; an event whose deletion failed comes back', async () => {
    const js = jetstream(nc);
    const event = { deletionId: randomUUID(), userId: 'user-1', requestedAt: new Date('2026-12-03T18:04:05.123Z') };
    await js.publish(topology.accountDeletedSubject, new TextEncoder().encode('{"deletionId":'));
    await js.publish(topology.accountDeletedSubject, encodeAccountDeleted(event));
    const handed: AccountDeleted[] = [];
    const deleteUserData = vi.fn(async (deleted: AccountDeleted) => {
      handed.push(deleted);
      if (handed.length === 1) throw new Error('the database blinked');
    });
    const log = logger();
    consumer = new AccountDeletionConsumer({
      service: 'kit-test',
      topology,
      streamReplicas: 1,
      deleteUserData,
      logger: log,
      ackWaitMs: 5_000,
      retryDelayMs: 100,
    });

    await consumer.start(nc);

    await waitUntil(() => handed.length === 2, { timeoutMs: 15_000 });
    expect(handed).toEqual([event, event]);
    expect(log.error).toHaveBeenCalledWith(
      expect.objectContaining({ service: 'kit-test' }),
      'undecodable account deletion event: dropping it',
    );
    expect(log.warn).toHaveBeenCalledWith(
      expect.objectContaining({ deletionId: event.deletionId }),
      'deleting an account’s data failed; the event comes back',
    );
    await waitUntil(() => log.info.mock.calls.length === 1, { timeoutMs: 5_000 });
    const info = await (await jetstreamManager(nc)).consumers.info(topology.accountEventsStream, 'kit-test-account-deletion');
    expect(info.num_ack_pending + info.num_pending, 'every event settled').toBe(0);
  });
});

describe('followAccountDeletions', () => {
  it('without NATS, starts none and warns what deleted accounts keep', () => {
    const log = logger();
    const none = followAccountDeletions(undefined, {
      service: 'kit-test',
      config: { NATS_STREAM_PREFIX: topology.prefix },
      deleteUserData: async () => {},
      kept: 'items',
      logger: log,
    });
    expect(none).toBeUndefined();
    expect(log.warn).toHaveBeenCalledWith({ service: 'kit-test' }, 'no NATS_URL: accounts whose deletion is requested keep their items');
  });
});

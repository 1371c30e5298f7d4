import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobsEventsV1, jobsV1 } from '@atelier/contracts';
import { natsTestPrefix, testNatsUrl, waitUntil } from '@atelier/testing';
import {
  connectNats,
  deleteJobStreams,
  jetstream,
  jetstreamManager,
  jobsTopology,
  LifecycleConsumer,
  NAK_DELAY_MS,
  type LifecycleOutcome,
  type NatsConnection,
} from './index.js';

const topology = jobsTopology(natsTestPrefix());
const logged: { level: 'warn' | 'error'; message: string }[] = [];
const logger = {
  warn: (_: object, message: string) => logged.push({ level: 'warn', message }),
  error: (_: object, message: string) => logged.push({ level: 'error', message }),
};
let nc: NatsConnection;

beforeAll(async () => {
  nc = await connectNats({ servers: testNatsUrl(), name: 'lifecycle-consumer-test' });
});

afterAll(async () => {
  await deleteJobStreams(await jetstreamManager(nc), topology);
  await nc.close();
});

function lifecycleEvent(jobId: string, status: 'failed' | 'succeeded'): string {
  return JSON.stringify(
    jobsEventsV1.JobLifecycleEvent.toJSON({
      ...jobsEventsV1.JobLifecycleEvent.fromPartial({}),
      jobId,
      eventType: `job.${status}`,
      status: status === 'failed' ? jobsV1.JobStatus.FAILED : jobsV1.JobStatus.SUCCEEDED,
    }),
  );
}

describe('lifecycle consumer', () => {
  it('hands decoded events to the handler with their headers, drops what is not an event, and brings back a failed one after NAK_DELAY_MS', async () => {
    const seen: { jobId: string; subject: string; msgId: string | undefined; at: number }[] = [];
    let failuresLeft = 1;
    const consumer = new LifecycleConsumer({
      purpose: 'test handling',
      topology,
      streamReplicas: 1,
      consumers: [
        { name: 'lifecycle-test-failed', filterSubject: topology.eventSubject('failed') },
        { name: 'lifecycle-test-succeeded', filterSubject: topology.eventSubject('succeeded') },
      ],
      maxMessages: 8,
      ackWaitMs: 60_000,
      logger,
      handle: async (event, message): Promise<LifecycleOutcome> => {
        seen.push({ jobId: event.jobId, subject: message.subject, msgId: message.headers?.get('Nats-Msg-Id'), at: Date.now() });
        if (event.jobId === 'flaky' && failuresLeft-- > 0) throw new Error('database away');
        return event.jobId === 'forged' ? 'term' : 'ack';
      },
    });
    await consumer.start(nc);
    try {
      const js = jetstream(nc);
      await js.publish(topology.eventSubject('failed'), 'not json at all');
      await js.publish(topology.eventSubject('failed'), lifecycleEvent('forged', 'failed'));
      await js.publish(topology.eventSubject('succeeded'), lifecycleEvent('fine', 'succeeded'), { msgID: 'event:fine:succeeded:v1' });
      await js.publish(topology.eventSubject('failed'), lifecycleEvent('flaky', 'failed'));
      await waitUntil(() => seen.filter((entry) => entry.jobId === 'flaky').length === 2, { timeoutMs: NAK_DELAY_MS + 10_000 });

      expect(seen.find((entry) => entry.jobId === 'fine')).toMatchObject({
        subject: topology.eventSubject('succeeded'),
        msgId: 'event:fine:succeeded:v1',
      });
      const [failed, again] = seen.filter((entry) => entry.jobId === 'flaky');
      expect(again!.at - failed!.at).toBeGreaterThanOrEqual(NAK_DELAY_MS - 500);
      expect(logged).toContainEqual({ level: 'error', message: 'undecodable lifecycle event: dropping it' });
      expect(logged).toContainEqual({ level: 'warn', message: 'test handling failed; the event comes back' });

      // Acked, terminated and dropped events never come back: nothing is pending on either consumer.
      const jsm = await jetstreamManager(nc);
      await waitUntil(async () => {
        const infos = await Promise.all(
          ['lifecycle-test-failed', 'lifecycle-test-succeeded'].map((name) => jsm.consumers.info(topology.eventsStream, name)),
        );
        return infos.every((info) => info.num_ack_pending === 0 && info.num_pending === 0);
      });
      expect(seen.filter((entry) => entry.jobId === 'forged')).toHaveLength(1);
      expect(seen.filter((entry) => entry.jobId === 'fine')).toHaveLength(1);
    } finally {
      await consumer.stop();
    }
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@atelier/config';
import { FailedPreconditionError } from '@atelier/errors';
import { natsTestPrefix, startNatsCluster, testNatsUrl, type NatsClusterProcess } from '@atelier/testing';
import {
  connectNats,
  deleteJobStreams,
  ensureJobStreams,
  ensureWorkerConsumer,
  jetstreamManager,
  jobsTopology,
  natsStreamsConfigSpec,
  type JetStreamManager,
  type NatsConnection,
} from './index.js';

describe('nats config - NATS_STREAM_REPLICAS', () => {
  it('is 1 unless set, and 1 to 5', () => {
    expect(loadConfig(natsStreamsConfigSpec, {}).NATS_STREAM_REPLICAS).toBe(1);
    expect(loadConfig(natsStreamsConfigSpec, { NATS_STREAM_REPLICAS: '3' }).NATS_STREAM_REPLICAS).toBe(3);
  });

  it('refuses a count outside 1..5, recommending an odd one', () => {
    expect(() => loadConfig(natsStreamsConfigSpec, { NATS_STREAM_REPLICAS: '7' })).toThrow(
      /NATS_STREAM_REPLICAS must be between 1 and 5, got 7: .*odd numbers \(1, 3, 5\)/,
    );
    expect(() => loadConfig(natsStreamsConfigSpec, { NATS_STREAM_REPLICAS: '0' })).toThrow(/NATS_STREAM_REPLICAS must be between 1 and 5/);
  });
});

describe('nats - stream replicas on a single server', () => {
  it('refuses more than one replica with an error that names NATS_STREAM_REPLICAS', async () => {
    const nc = await connectNats({ servers: testNatsUrl(), name: 'replicas-single' });
    const jsm = await jetstreamManager(nc);
    const topology = jobsTopology(natsTestPrefix());
    try {
      const refusal = await ensureJobStreams(jsm, topology, { replicas: 3 }).catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(FailedPreconditionError);
      expect((refusal as FailedPreconditionError).reason).toBe('NATS_STREAM_REPLICAS_REFUSED');
      expect((refusal as Error).message).toMatch(
        new RegExp(
          `stream ${topology.jobsStream} cannot have 3 replicas: the NATS server is not clustered .*set NATS_STREAM_REPLICAS to at most`,
        ),
      );
    } finally {
      await deleteJobStreams(jsm, topology);
      await nc.close();
    }
  });
});

describe('nats - stream replicas in a cluster', () => {
  let cluster: NatsClusterProcess;
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  const topology = jobsTopology(natsTestPrefix());

  beforeAll(async () => {
    cluster = await startNatsCluster();
    nc = await connectNats({ servers: cluster.url, name: 'replicas-cluster' });
    jsm = await jetstreamManager(nc);
  }, 60_000);

  afterAll(async () => {
    await nc?.close();
    await cluster?.close();
  });

  it('creates both streams with the replicas asked, and changes an existing stream to a new count in place', async () => {
    await ensureJobStreams(jsm, topology);
    expect((await jsm.streams.info(topology.jobsStream)).config.num_replicas).toBe(1);
    await ensureWorkerConsumer(jsm, topology, 'interactive', { ackWaitMs: 30_000, maxDeliver: -1 });

    await ensureJobStreams(jsm, topology, { replicas: 3 });
    for (const stream of [topology.jobsStream, topology.eventsStream]) {
      const info = await jsm.streams.info(stream);
      expect(info.config.num_replicas, stream).toBe(3);
      const servers = [info.cluster?.leader, ...(info.cluster?.replicas ?? []).map((replica) => replica.name)];
      expect(new Set(servers.filter(Boolean)).size, `${stream} is on three servers`).toBe(3);
    }
    // Consumers declare no count of their own: they follow their stream's.
    const consumer = await jsm.consumers.info(topology.jobsStream, topology.consumerName('interactive'));
    expect(consumer.config.num_replicas ?? 0).toBe(0);
  });

  it('refuses more replicas than the cluster has servers, naming NATS_STREAM_REPLICAS', async () => {
    const other = jobsTopology(natsTestPrefix());
    const refusal = await ensureJobStreams(jsm, other, { replicas: 5 }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(FailedPreconditionError);
    expect((refusal as Error).message).toMatch(
      /cannot have 5 replicas: the NATS cluster has too few JetStream servers .*NATS_STREAM_REPLICAS/,
    );

    const refusedUpdate = await ensureJobStreams(jsm, topology, { replicas: 5 }).catch((error: unknown) => error);
    expect(refusedUpdate).toBeInstanceOf(FailedPreconditionError);
    expect((refusedUpdate as Error).message).toMatch(
      new RegExp(`stream ${topology.jobsStream} cannot go from 3 to 5 replicas: .*NATS_STREAM_REPLICAS`),
    );
  });
});

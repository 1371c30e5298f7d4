import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { natsTestPrefix, testNatsUrl } from '@atelier/testing';
import { connectNats, jetstreamManager, WindowCounters, windowCountersBucket, type NatsConnection } from './index.js';

const bucket = windowCountersBucket(natsTestPrefix());
const options = { bucket, maxAgeMs: 120_000, timeoutMs: 2_000 };
const connections: NatsConnection[] = [];

beforeAll(async () => {
  // Two connections: two replicas, each with its own idea of the counters' revisions.
  for (const name of ['replica-a', 'replica-b']) connections.push(await connectNats({ servers: testNatsUrl(), name }));
});

afterAll(async () => {
  if (connections[0]) await (await jetstreamManager(connections[0])).streams.delete(`KV_${bucket}`).catch(() => false);
  for (const connection of connections) await connection.close();
});

describe('window counters - shared by replicas', () => {
  it('never grants more than the limit in sum, however the reservations of two replicas interleave', async () => {
    const [a, b] = await Promise.all(connections.map((nc) => WindowCounters.open(nc, options)));
    const reservations = await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 2 ? a! : b!).reserve('user.alice.7', (remaining) => Math.min(3, remaining), 50)),
    );
    expect(reservations.reduce((sum, r) => sum + r.granted, 0)).toBe(50);
    await expect(a!.reserve('user.alice.7', () => 1, 50)).resolves.toEqual({ granted: 0, count: 50 });
    // A new window is a new key.
    await expect(b!.reserve('user.alice.8', () => 5, 50)).resolves.toEqual({ granted: 5, count: 5 });
  });

  it('grants at least one unit and never past the limit', async () => {
    const counters = await WindowCounters.open(connections[0]!, options);
    await expect(counters.reserve('address.x.1', () => 0, 3)).resolves.toEqual({ granted: 1, count: 1 });
    await expect(counters.reserve('address.x.1', () => 10, 3)).resolves.toEqual({ granted: 2, count: 3 });
  });
});

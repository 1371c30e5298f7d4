import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { randomBytes } from 'node:crypto';

/** The NATS server tests use (TEST_NATS_URL). */
export function testNatsUrl(): string {
  return process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';
}

/**
 * A NATS_STREAM_PREFIX unique to this run (`T<unix seconds>_<random>`), so that streams,
 * subjects and consumers of concurrent runs never meet. Tests delete their streams afterwards;
 * dropStaleTestStreams removes what crashed runs left.
 */
export function natsTestPrefix(): string {
  return `T${Math.floor(Date.now() / 1000)}_${randomBytes(4).toString('hex').toUpperCase()}`;
}

export async function dropStaleTestStreams(maxAgeSeconds = 6 * 3600): Promise<string[]> {
  const nc = await connect({ servers: testNatsUrl().replace(/^nats:\/\//, '') });
  try {
    const jsm = await jetstreamManager(nc);
    const now = Math.floor(Date.now() / 1000);
    const stale: string[] = [];
    for await (const name of jsm.streams.names()) {
      // KV_<prefix>_…: a key-value bucket of the run (the gateway's rate-limit counters).
      const match = /^(?:KV_)?T(\d{10})_[0-9A-F]{8}_/.exec(name);
      if (match && now - Number(match[1]) > maxAgeSeconds) stale.push(name);
    }
    for (const name of stale) await jsm.streams.delete(name);
    return stale;
  } finally {
    await nc.close();
  }
}

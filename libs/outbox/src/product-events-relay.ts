import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { SqlPool } from '@atelier/db';
import { ensureProductEventsStream, jetstream, jetstreamManager, jobsTopology, type JetStreamClient, type NatsLink } from '@atelier/nats';
import { OutboxRelay, type OutboxRelayOptions } from './outbox-relay.js';

/**
 * The relay of a service whose outbox holds product events only (media, community): it publishes
 * over the service's NATS link while the link is up, and declares the product events stream
 * itself (before its first publish, and again should the stream vanish), so that the rest of the
 * service's NATS use never waits on it.
 */
export function productEventsRelay(
  options: Pick<OutboxRelayOptions, 'pool' | 'databaseUrl' | 'schema' | 'logger' | 'pollIntervalMs'> & {
    pool: SqlPool;
    link: Pick<NatsLink, 'up' | 'connection'>;
    streamPrefix: string;
    streamReplicas: number;
  },
): OutboxRelay {
  const topology = jobsTopology(options.streamPrefix);
  let js: { connection: unknown; client: JetStreamClient } | undefined;
  const broker = () => {
    const connection = options.link.up() ? options.link.connection() : undefined;
    if (!connection) return undefined;
    if (js?.connection !== connection) js = { connection, client: jetstream(connection) };
    return js.client;
  };
  return new OutboxRelay({
    pool: options.pool,
    databaseUrl: options.databaseUrl,
    schema: options.schema,
    logger: options.logger,
    pollIntervalMs: options.pollIntervalMs,
    relayId: `${options.schema}-relay/${hostname()}/${process.pid}/${randomBytes(3).toString('hex')}`,
    broker,
    declareStreams: async () => {
      const connection = options.link.connection();
      if (!connection) throw new Error('not connected to NATS');
      await ensureProductEventsStream(await jetstreamManager(connection), topology, { replicas: options.streamReplicas });
    },
  });
}

/**
 * productEventsRelay over a service's link, started; without a link (no NATS_URL) none, and a
 * warning that the product events wait in the outbox meanwhile.
 */
export async function startProductEventsRelay(
  link: Pick<NatsLink, 'up' | 'connection'> | undefined,
  options: Omit<Parameters<typeof productEventsRelay>[0], 'link'> & { service: string },
): Promise<OutboxRelay | undefined> {
  if (!link) {
    options.logger.warn({}, `no NATS_URL: product events wait in the outbox until ${options.service} runs with NATS`);
    return undefined;
  }
  const relay = productEventsRelay({ ...options, link });
  await relay.start();
  return relay;
}

import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { NatsCredentials } from './nats-config.js';

/**
 * Connects with reconnection forever: a NATS restart must not take a service down. Callers
 * treat publish failures during an outage like any other failure (the outbox retries).
 */
export async function connectNats(options: { servers: string; name: string; credentials?: NatsCredentials }): Promise<NatsConnection> {
  const { NATS_USER, NATS_PASSWORD, NATS_TOKEN } = options.credentials ?? {};
  return connect({
    ...(NATS_USER ? { user: NATS_USER, pass: NATS_PASSWORD } : {}),
    ...(NATS_TOKEN ? { token: NATS_TOKEN } : {}),
    servers: options.servers.split(',').map((server) => server.trim().replace(/^nats:\/\//, '')),
    name: options.name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    pingInterval: 10_000,
  });
}

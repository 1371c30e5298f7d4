import { connect, type NatsConnection } from '@nats-io/transport-node';

/**
 * Connects with reconnection forever: a NATS restart must not take a service down. Callers
 * treat publish failures during an outage like any other failure (the outbox retries).
 */
export async function connectNats(options: { servers: string; name: string }): Promise<NatsConnection> {
  return connect({
    servers: options.servers.split(',').map((server) => server.trim().replace(/^nats:\/\//, '')),
    name: options.name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    pingInterval: 10_000,
  });
}

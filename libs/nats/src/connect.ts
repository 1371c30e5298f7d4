import { connect, type ConnectionOptions, type NatsConnection } from '@nats-io/transport-node';
import type { NatsCredentials } from './nats-config.js';

/**
 * The options every Atelier connection uses: the credentials given, reconnection forever, and
 * no async traces — nats.js otherwise builds two Error objects (stack traces included) for every
 * request, a JetStream publish included, to tell where a timeout came from: ~4 % of the jobs
 * service's CPU under load, for stacks our logs do not need (the error names the subject).
 */
export function natsConnectionOptions(options: { servers: string; name: string; credentials?: NatsCredentials }): ConnectionOptions {
  const { NATS_USER, NATS_PASSWORD, NATS_TOKEN } = options.credentials ?? {};
  return {
    ...(NATS_USER ? { user: NATS_USER, pass: NATS_PASSWORD } : {}),
    ...(NATS_TOKEN ? { token: NATS_TOKEN } : {}),
    servers: options.servers.split(',').map((server) => server.trim().replace(/^nats:\/\//, '')),
    name: options.name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    pingInterval: 10_000,
    noAsyncTraces: true,
  };
}

/**
 * Connects with reconnection forever: a NATS restart must not take a service down. Callers
 * treat publish failures during an outage like any other failure (the outbox retries).
 */
export async function connectNats(options: { servers: string; name: string; credentials?: NatsCredentials }): Promise<NatsConnection> {
  return connect(natsConnectionOptions(options));
}

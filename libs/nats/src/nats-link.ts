import { hostname } from 'node:os';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { NatsCredentials } from './nats-config.js';
import { natsConnectionOptions } from './connect.js';

export interface NatsLinkOptions {
  servers: string;
  name: string;
  credentials?: NatsCredentials;
  logger: { info(fields: object, message: string): void; warn(fields: object, message: string): void };
  /**
   * Runs after every (re)connection — declaring streams and consumers, say — and again, after a
   * pause, until it succeeds: a broker that just came back may not serve JetStream yet.
   */
  onConnected?: (connection: NatsConnection) => Promise<void>;
  /** Told whenever the link goes up (true: connected and onConnected done) or down. */
  onStateChange?: (up: boolean) => void;
}

/**
 * A NATS connection for a service that must keep serving while the broker is away: opening it
 * never waits (the service starts and answers what needs no broker), it connects as soon as the
 * broker answers and reconnects forever after. `up()` says whether it can be used right now.
 */
export interface NatsLink {
  /** The connection, once the broker first answered and onConnected first succeeded. */
  ready(): Promise<NatsConnection>;
  /** True while connected and set up (onConnected done since the last reconnection). */
  up(): boolean;
  /** The connection when there is one (connected or reconnecting). */
  connection(): NatsConnection | undefined;
  /** Drains and closes it (or stops trying to connect). */
  close(): Promise<void>;
}

const SETUP_RETRY_MS = 1_000;

/**
 * The grpc.health.v1 service name under which a service that uses NATS says whether it is
 * connected. A service's overall status ('') does not follow it: jobs and media serve without the
 * broker (the outbox keeps the announcements, the cleanup catches up), so a NATS outage is
 * degraded, not down.
 */
export const NATS_HEALTH_SERVICE = 'nats';

export function openNatsLink(options: NatsLinkOptions): NatsLink {
  let connection: NatsConnection | undefined;
  let up = false;
  let closed = false;
  const setUp = (value: boolean) => {
    if (up === value) return;
    up = value;
    options.onStateChange?.(value);
  };

  // Declares what the service needs on this connection, retrying until it works or the link closes.
  const prepare = async (nc: NatsConnection) => {
    for (let attempt = 1; !closed && !nc.isClosed(); attempt += 1) {
      try {
        await options.onConnected?.(nc);
        setUp(true);
        return;
      } catch (error) {
        options.logger.warn({ err: error, attempt }, 'NATS connected but not ready (JetStream); trying again');
        await new Promise((resolve) => setTimeout(resolve, SETUP_RETRY_MS));
      }
    }
  };

  const connecting = connect({
    ...natsConnectionOptions({ servers: options.servers, name: options.name, credentials: options.credentials }),
    // Keep trying from the very first connection on: a broker that is down at start-up is an
    // outage to wait out like any other, not a reason to crash-loop.
    waitOnFirstConnect: true,
  });
  const ready = connecting.then(async (nc) => {
    connection = nc;
    options.logger.info({ servers: options.servers }, 'connected to NATS');
    void (async () => {
      for await (const status of nc.status()) {
        if (status.type === 'disconnect') {
          setUp(false);
          options.logger.warn({}, 'NATS connection lost; reconnecting');
        } else if (status.type === 'reconnect') {
          options.logger.info({}, 'NATS connection back');
          void prepare(nc);
        }
      }
    })();
    await prepare(nc);
    return nc;
  });
  // Nobody may be waiting on ready(): its failure (the link closed first) is not an error then.
  ready.catch(() => {});

  return {
    ready: () => ready,
    up: () => up && !!connection && !connection.isClosed(),
    connection: () => connection,
    async close() {
      closed = true;
      setUp(false);
      if (connection) await connection.drain().catch(() => {});
      else void connecting.then((nc) => nc.close()).catch(() => {});
    },
  };
}

/** Where a service says whether its link is up: its gRPC health (`server.health`). */
export interface LinkHealth {
  setStatus(service: string, status: 'SERVING' | 'NOT_SERVING'): void;
}

export interface ServiceNatsLinkOptions<C extends { NATS_URL?: string }> {
  /** The service: the connection is named `<service>@<host>`. */
  service: string;
  /** NATS_URL and the credentials; without a NATS_URL, no link. */
  config: C & NatsCredentials;
  health: LinkHealth;
  logger: NatsLinkOptions['logger'];
}

/**
 * The NATS link of a service that serves without the broker: its health entry NATS_HEALTH_SERVICE
 * follows the link (NOT_SERVING until the broker first answers, and whenever it is away); no link
 * when the configuration has no NATS_URL.
 */
export function openServiceNatsLink(options: ServiceNatsLinkOptions<{ NATS_URL: string }>): NatsLink;
export function openServiceNatsLink(options: ServiceNatsLinkOptions<{ NATS_URL?: string }>): NatsLink | undefined;
export function openServiceNatsLink(options: ServiceNatsLinkOptions<{ NATS_URL?: string }>): NatsLink | undefined {
  const { config, health } = options;
  const link = config.NATS_URL
    ? openNatsLink({
        servers: config.NATS_URL,
        name: `${options.service}@${hostname()}`,
        credentials: config,
        logger: options.logger,
        onStateChange: (up) => health.setStatus(NATS_HEALTH_SERVICE, up ? 'SERVING' : 'NOT_SERVING'),
      })
    : undefined;
  health.setStatus(NATS_HEALTH_SERVICE, link?.up() ? 'SERVING' : 'NOT_SERVING');
  return link;
}

import { jetstream, jetstreamManager, type JsMsg } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { NAK_DELAY_MS, startDurablePull, type DurablePull } from './durable-pull.js';
import type { NatsLink } from './nats-link.js';
import { ensureAccountDeletionConsumer, ensureAccountEventsStream } from './streams.js';
import type { JobsTopology } from './topology.js';

/** AccountDeletedEvent (atelier.jobs.v1, events.proto) as its proto3 JSON carries it. */
export interface AccountDeleted {
  deletionId: string;
  userId: string;
  requestedAt: string;
}

export interface AccountDeletionConsumerOptions {
  /** The consuming service: its durable consumer is `<service>-account-deletion`. */
  service: string;
  topology: JobsTopology;
  streamReplicas: number;
  /**
   * Deletes this service's data of the user, idempotently (the event comes at least once, and again
   * after a crash mid-way). Resolves once all of it is gone; throws to have the event come back.
   */
  deleteUserData: (event: AccountDeleted) => Promise<void>;
  logger: {
    info(fields: object, message: string): void;
    warn(fields: object, message: string): void;
    error(fields: object, message: string): void;
  };
  /** Redelivery after this without an ack: a replica killed mid-deletion hands the event on. */
  ackWaitMs?: number;
  /** Pause before an event whose deletion failed comes back (default NAK_DELAY_MS). */
  retryDelayMs?: number;
}

const USER_ID = /^[\x21-\x7e]{1,128}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The event, or undefined when it is not one (a forged or corrupt message is dropped, not retried). */
export function parseAccountDeleted(data: unknown): AccountDeleted | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const { deletionId, userId, requestedAt } = data as Record<string, unknown>;
  if (typeof deletionId !== 'string' || !UUID.test(deletionId)) return undefined;
  if (typeof userId !== 'string' || !USER_ID.test(userId)) return undefined;
  if (typeof requestedAt !== 'string' || Number.isNaN(Date.parse(requestedAt))) return undefined;
  return { deletionId, userId, requestedAt };
}

/**
 * One service's consumer of account deletions: a durable consumer shared by the service's
 * replicas, one event at a time; an event is acked only once the service's part is done, so a
 * replica killed mid-way leaves it to the next delivery (ackWaitMs later), which resumes.
 */
export class AccountDeletionConsumer {
  private pull: DurablePull | undefined;

  constructor(private readonly options: AccountDeletionConsumerOptions) {}

  async start(nats: NatsConnection): Promise<void> {
    const { topology, service, logger } = this.options;
    const jsm = await jetstreamManager(nats);
    let consumer = topology.accountDeletionConsumerName(service);
    const declare = async () => {
      await ensureAccountEventsStream(jsm, topology, { replicas: this.options.streamReplicas });
      consumer = await ensureAccountDeletionConsumer(jsm, topology, { service, ackWaitMs: this.options.ackWaitMs ?? 60_000 });
    };
    await declare();
    this.pull = await startDurablePull({
      js: jetstream(nats),
      stream: topology.accountEventsStream,
      consumer,
      maxMessages: 4,
      declare,
      logger,
      handle: (message) => this.handle(message),
    });
  }

  /**
   * Starts once the link first connects: a service serves without the broker, and the durable
   * consumer catches up on what was published meanwhile. A failure to start is logged.
   */
  follow(link: Pick<NatsLink, 'ready'>): void {
    void link
      .ready()
      .then((connection) => this.start(connection))
      .catch((error: unknown) =>
        this.options.logger.error({ err: error, service: this.options.service }, 'the account deletion consumer could not start'),
      );
  }

  async stop(): Promise<void> {
    await this.pull?.stop();
  }

  private async handle(message: JsMsg): Promise<void> {
    const { logger, service } = this.options;
    let event: AccountDeleted | undefined;
    try {
      event = parseAccountDeleted(message.json());
    } catch {
      event = undefined;
    }
    if (!event) {
      logger.error({ subject: message.subject, service }, 'undecodable account deletion event: dropping it');
      message.term();
      return;
    }
    // A long deletion keeps its claim on the event: a working replica is not taken for a dead one.
    const keepAlive = setInterval(() => message.working(), Math.max(300, Math.floor((this.options.ackWaitMs ?? 60_000) / 3)));
    try {
      await this.options.deleteUserData(event);
      message.ack();
      logger.info({ deletionId: event.deletionId, service }, 'deleted this service’s part of an account');
    } catch (error) {
      logger.warn({ err: error, deletionId: event.deletionId, service }, 'deleting an account’s data failed; the event comes back');
      message.nak(this.options.retryDelayMs ?? NAK_DELAY_MS);
    } finally {
      clearInterval(keepAlive);
    }
  }
}

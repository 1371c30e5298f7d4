import {
  ensureAccountDeletionConsumer,
  ensureAccountEventsStream,
  jetstream,
  jetstreamManager,
  jobsTopology,
  NAK_DELAY_MS,
  startDurablePull,
  type DurablePull,
  type JobsTopology,
  type JsMsg,
  type NatsConnection,
  type NatsLink,
} from '@atelier/nats';
import { decodeAccountDeleted, type AccountDeleted } from './account-deleted-event.js';
import type { AccountDeletionConfig } from './account-deletion-config.js';

export interface AccountDeletionLogger {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/** Deletes a service's data of the user, idempotently; throws to have the event come back. */
export type DeleteUserData = (event: AccountDeleted) => Promise<void>;

export interface AccountDeletionConsumerOptions {
  /** The consuming service: its durable consumer is `<service>-account-deletion`. */
  service: string;
  topology: JobsTopology;
  streamReplicas: number;
  /**
   * Deletes this service's data of the user, idempotently (the event comes at least once, and again
   * after a crash mid-way). Resolves once all of it is gone; throws to have the event come back.
   */
  deleteUserData: DeleteUserData;
  logger: AccountDeletionLogger;
  /** Redelivery after this without an ack: a replica killed mid-deletion hands the event on. */
  ackWaitMs?: number;
  /** Pause before an event whose deletion failed comes back (default NAK_DELAY_MS). */
  retryDelayMs?: number;
}

const DEFAULT_ACK_WAIT_MS = 60_000;

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
      consumer = await ensureAccountDeletionConsumer(jsm, topology, { service, ackWaitMs: this.ackWaitMs });
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

  private get ackWaitMs(): number {
    return this.options.ackWaitMs ?? DEFAULT_ACK_WAIT_MS;
  }

  private async handle(message: JsMsg): Promise<void> {
    const { logger, service } = this.options;
    const event = decodeAccountDeleted(message.data);
    if (!event) {
      logger.error({ subject: message.subject, service }, 'undecodable account deletion event: dropping it');
      message.term();
      return;
    }
    // A long deletion keeps its claim on the event: a working replica is not taken for a dead one.
    const keepAlive = setInterval(() => message.working(), Math.max(300, Math.floor(this.ackWaitMs / 3)));
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

/**
 * A service's consumer of account deletions, following its NATS link from the broker's first
 * answer on; without a link (no NATS_URL) none, and a warning saying what deleted accounts keep.
 */
export function followAccountDeletions(link: NatsLink, options: FollowOptions): AccountDeletionConsumer;
export function followAccountDeletions(link: NatsLink | undefined, options: FollowOptions): AccountDeletionConsumer | undefined;
export function followAccountDeletions(link: NatsLink | undefined, options: FollowOptions): AccountDeletionConsumer | undefined {
  const { service, config, logger } = options;
  if (!link) {
    logger.warn({ service }, `no NATS_URL: accounts whose deletion is requested keep their ${options.kept}`);
    return undefined;
  }
  const consumer = new AccountDeletionConsumer({
    service,
    topology: jobsTopology(config.NATS_STREAM_PREFIX),
    streamReplicas: config.NATS_STREAM_REPLICAS ?? 1,
    deleteUserData: options.deleteUserData,
    ackWaitMs: config.ACCOUNT_DELETION_ACK_WAIT_MS,
    logger,
  });
  consumer.follow(link);
  return consumer;
}

export interface FollowOptions {
  service: string;
  config: AccountDeletionConfig;
  deleteUserData: DeleteUserData;
  /** What deleted accounts keep while the service runs without NATS ("posts"), for the warning. */
  kept: string;
  logger: AccountDeletionLogger;
}

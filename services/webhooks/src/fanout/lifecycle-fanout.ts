import { jobsEventsV1, type jobsV1, JOB_STATUS_WORDS } from '@atelier/contracts';
import type { SqlPool } from '@atelier/db';
import type { Logger } from '@atelier/logging';
import {
  ensureEventsConsumer,
  ensureJobStreams,
  jetstream,
  jetstreamManager,
  NAK_DELAY_MS,
  startDurablePull,
  type DurablePull,
  type JobsTopology,
  type JsMsg,
  type NatsConnection,
} from '@atelier/nats';
import { insertDeliveriesForEvent } from '../db/delivery-sql.js';
import { WEBHOOK_EVENT_TYPES } from '../domain/event-types.js';

/** The durable consumer every webhooks replica shares on the lifecycle events. */
export const FANOUT_CONSUMER = 'webhooks-fanout';

/** A job's status and owner as jobs has them (GetJobStatus), or undefined when jobs does not know it. Throws when jobs cannot be asked. */
export type JobOwnerLookup = (jobId: string) => Promise<{ status: jobsV1.JobStatus; userId: string } | undefined>;

export interface LifecycleFanoutOptions {
  pool: SqlPool;
  topology: JobsTopology;
  streamReplicas: number;
  /** Events carry no user: jobs says whose job it is, and confirms the event (a forged one is dropped). */
  jobOwner: JobOwnerLookup;
  logger: Logger;
  /** Told after deliveries were created. */
  onDeliveries: () => void;
  ackWaitMs?: number;
}

/**
 * The webhook body of a lifecycle event: Standard Webhooks' envelope {type, timestamp, data}.
 * Ids and words only, as the event itself: no prompt, no URL.
 */
export function webhookBody(event: jobsEventsV1.JobLifecycleEvent): string {
  return JSON.stringify({
    type: event.eventType,
    timestamp: (event.occurredAt ?? new Date()).toISOString(),
    data: {
      jobId: event.jobId,
      jobType: event.jobType,
      status: JOB_STATUS_WORDS.wordOf(event.status) ?? 'unspecified',
      attempt: event.attempt,
      ...(event.errorCode === undefined ? {} : { errorCode: event.errorCode }),
      ...(event.outputAssetId === undefined ? {} : { outputAssetId: event.outputAssetId }),
    },
  });
}

/**
 * Turns each lifecycle event into one delivery per interested endpoint of the job's user, then
 * acks it. At least once from NATS, exactly one delivery per (endpoint, event) in Postgres: the
 * insert is idempotent (insertDeliveriesForEvent), so a redelivered event changes nothing. The
 * consumer starts at the events published after its creation.
 */
export class LifecycleFanout {
  private pull: DurablePull | undefined;

  constructor(private readonly options: LifecycleFanoutOptions) {}

  async start(nats: NatsConnection): Promise<void> {
    const { topology, logger } = this.options;
    const jsm = await jetstreamManager(nats);
    // Webhooks may start before jobs: both declare the streams, idempotently.
    const declare = async () => {
      await ensureJobStreams(jsm, topology, { replicas: this.options.streamReplicas });
      await ensureEventsConsumer(jsm, topology, {
        name: FANOUT_CONSUMER,
        filterSubject: topology.allEventsSubject,
        ackWaitMs: this.options.ackWaitMs ?? 30_000,
        maxDeliver: -1,
      });
    };
    await declare();
    this.pull = await startDurablePull({
      js: jetstream(nats),
      stream: topology.eventsStream,
      consumer: FANOUT_CONSUMER,
      maxMessages: 64,
      declare,
      logger,
      handle: (message) => this.handle(message),
    });
  }

  async stop(): Promise<void> {
    await this.pull?.stop();
  }

  private async handle(message: JsMsg): Promise<void> {
    const { logger } = this.options;
    let event: jobsEventsV1.JobLifecycleEvent;
    try {
      event = jobsEventsV1.JobLifecycleEvent.fromJSON(message.json());
    } catch (error) {
      logger.error({ err: error, subject: message.subject }, 'undecodable lifecycle event: dropping it');
      message.term();
      return;
    }
    if (!WEBHOOK_EVENT_TYPES.includes(event.eventType) || !event.jobId) {
      message.ack();
      return;
    }
    // The outbox's dedupe key (event:<job>:<status>:v<version>): the same for every copy of the event.
    const eventId = message.headers?.get('Nats-Msg-Id') || `${event.jobId}:${event.eventType}`;
    try {
      const owner = await this.options.jobOwner(event.jobId);
      if (!owner || `job.${JOB_STATUS_WORDS.wordOf(owner.status)}` !== event.eventType) {
        logger.warn(
          { jobId: event.jobId, eventType: event.eventType, status: owner ? JOB_STATUS_WORDS.wordOf(owner.status) : 'unknown' },
          'a lifecycle event jobs does not confirm: no webhook for it',
        );
        message.term();
        return;
      }
      const created = await insertDeliveriesForEvent(this.options.pool, {
        eventId,
        eventType: event.eventType,
        userId: owner.userId,
        body: webhookBody(event),
      });
      message.ack();
      if (created > 0) this.options.onDeliveries();
    } catch (error) {
      logger.warn({ err: error, jobId: event.jobId }, 'webhook fan-out failed; the event comes back');
      message.nak(NAK_DELAY_MS);
    }
  }
}

import { type jobsEventsV1, type jobsV1, JOB_STATUS_WORDS } from '@atelier/contracts';
import type { SqlPool } from '@atelier/db';
import type { Logger } from '@atelier/logging';
import { LifecycleConsumer, type JobsTopology, type JsMsg, type LifecycleOutcome } from '@atelier/nats';
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
export class LifecycleFanout extends LifecycleConsumer {
  constructor(options: LifecycleFanoutOptions) {
    const { topology, streamReplicas, logger, ackWaitMs } = options;
    super({
      purpose: 'webhook fan-out',
      topology,
      streamReplicas,
      consumers: [{ name: FANOUT_CONSUMER, filterSubject: topology.allEventsSubject }],
      maxMessages: 64,
      ackWaitMs,
      logger,
      handle: (event, message) => fanOut(options, event, message),
    });
  }
}

async function fanOut(
  options: LifecycleFanoutOptions,
  event: jobsEventsV1.JobLifecycleEvent,
  message: Pick<JsMsg, 'headers'>,
): Promise<LifecycleOutcome> {
  if (!WEBHOOK_EVENT_TYPES.includes(event.eventType) || !event.jobId) return 'ack';
  const owner = await options.jobOwner(event.jobId);
  if (!owner || `job.${JOB_STATUS_WORDS.wordOf(owner.status)}` !== event.eventType) {
    options.logger.warn(
      { jobId: event.jobId, eventType: event.eventType, status: owner ? JOB_STATUS_WORDS.wordOf(owner.status) : 'unknown' },
      'a lifecycle event jobs does not confirm: no webhook for it',
    );
    return 'term';
  }
  // The outbox's dedupe key (event:<job>:<status>:v<version>): the same for every copy of the event.
  const eventId = message.headers?.get('Nats-Msg-Id') || `${event.jobId}:${event.eventType}`;
  const created = await insertDeliveriesForEvent(options.pool, {
    eventId,
    eventType: event.eventType,
    userId: owner.userId,
    body: webhookBody(event),
  });
  if (created > 0) options.onDeliveries();
  return 'ack';
}

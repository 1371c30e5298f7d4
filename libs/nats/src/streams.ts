import {
  AckPolicy,
  DeliverPolicy,
  JetStreamApiError,
  RetentionPolicy,
  StorageType,
  type JetStreamManager,
  type StreamConfig,
} from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import { FailedPreconditionError } from '@atelier/errors';
import { CONTROL_TASKS, JOB_QUEUES, type ControlTask, type JobQueueName, type JobsTopology } from './topology.js';

const DAY_MS = 24 * 3600 * 1000;
/** How long the product events stream keeps an event. */
export const PRODUCT_EVENTS_MAX_AGE_MS = 7 * DAY_MS;

export interface StreamOptions {
  /** JetStream drops a republished message with a known Nats-Msg-Id within this window. */
  duplicateWindowMs?: number;
  /** Lifecycle events are kept this long. */
  eventsMaxAgeMs?: number;
  /** Dispatch messages nobody acked (max deliveries reached) are dropped after this. */
  dispatchMaxAgeMs?: number;
  /** Copies of each stream in a NATS cluster (NATS_STREAM_REPLICAS); 1 when unset. */
  replicas?: number;
}

/**
 * JetStream's refusals of a replica count (err_code): a single server without clustering, and a
 * cluster with fewer JetStream servers than replicas. The operator fixes either by changing
 * NATS_STREAM_REPLICAS, so these are told in its terms; other refusals pass on as the server gave them.
 */
const REPLICA_REFUSALS: Record<number, string> = {
  10074: 'the NATS server is not clustered',
  10005: 'the NATS cluster has too few JetStream servers',
  10023: 'the NATS cluster has too few JetStream servers with room for it',
};

const REPLICAS_ADVICE =
  'set NATS_STREAM_REPLICAS to at most the number of JetStream servers in the NATS cluster (1 for a single server; ' +
  'an odd number, 1, 3 or 5, keeps a majority through the loss of a node)';

/**
 * The error to throw for a refused add or update of a stream with `replicas` copies; `from` is its
 * current replica count when the update changes it, whatever the server's reason then.
 */
function replicaRefusal(error: unknown, stream: string, replicas: number, from?: number): unknown {
  if (!(error instanceof JetStreamApiError)) return error;
  const known = REPLICA_REFUSALS[error.code];
  if (!known && from === undefined) return error;
  const what = from === undefined ? `cannot have ${replicas} replicas` : `cannot go from ${from} to ${replicas} replicas`;
  return new FailedPreconditionError(
    'NATS_STREAM_REPLICAS_REFUSED',
    `stream ${stream} ${what}: ${known ?? 'the NATS server refused the update'} (${error.message}); ${REPLICAS_ADVICE}`,
    { cause: error },
  );
}

function isNotFound(error: unknown): boolean {
  return error instanceof JetStreamApiError && error.status === 404;
}

async function ensureStream(jsm: JetStreamManager, config: Partial<StreamConfig> & { name: string; num_replicas: number }): Promise<void> {
  let info;
  try {
    info = await jsm.streams.info(config.name);
  } catch (error) {
    if (!isNotFound(error)) throw error;
    await jsm.streams.add(config).catch((refusal: unknown) => {
      throw replicaRefusal(refusal, config.name, config.num_replicas);
    });
    return;
  }
  if (config.retention && info.config.retention !== config.retention) {
    throw new Error(
      `stream ${config.name} exists with retention ${info.config.retention}, expected ${config.retention}; it cannot be changed in place`,
    );
  }
  // Every replica declares the streams at start-up (and again when one goes missing): update
  // only what differs, so that a stream in use is not rewritten for nothing. A new replica count
  // is such an update: JetStream adds or removes the stream's copies in place.
  const current = info.config as unknown as Record<string, unknown>;
  const differs = Object.entries(config).some(([key, value]) => JSON.stringify(current[key]) !== JSON.stringify(value));
  if (!differs) return;
  const from = info.config.num_replicas === config.num_replicas ? undefined : info.config.num_replicas;
  await jsm.streams.update(config.name, { ...info.config, ...config }).catch((refusal: unknown) => {
    throw replicaRefusal(refusal, config.name, config.num_replicas, from);
  });
}

/**
 * Creates or updates both streams; safe to run from every replica at every start-up. The
 * duplicate window must outlast the outbox relay's lock timeout, so that a row published by a
 * relay that died before recording it is deduplicated when another relay publishes it again.
 */
export async function ensureJobStreams(jsm: JetStreamManager, topology: JobsTopology, options: StreamOptions = {}): Promise<void> {
  const duplicateWindow = nanos(options.duplicateWindowMs ?? 5 * 60_000);
  // Consumers are declared without num_replicas (0): they take their stream's.
  const replicas = options.replicas ?? 1;
  await ensureStream(jsm, {
    name: topology.jobsStream,
    subjects: [
      ...JOB_QUEUES.map((queue) => topology.dispatchSubject(queue)),
      ...CONTROL_TASKS.map((task) => topology.controlSubject(task)),
    ],
    retention: RetentionPolicy.Workqueue,
    storage: StorageType.File,
    duplicate_window: duplicateWindow,
    max_age: nanos(options.dispatchMaxAgeMs ?? 7 * DAY_MS),
    num_replicas: replicas,
  });
  await ensureStream(jsm, {
    name: topology.eventsStream,
    subjects: [topology.allEventsSubject],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    duplicate_window: duplicateWindow,
    max_age: nanos(options.eventsMaxAgeMs ?? 7 * DAY_MS),
    num_replicas: replicas,
  });
}

/**
 * The account events stream, declared by its publisher (jobs) and its consumers only. A deletion
 * must reach a service that is down for days: kept a quarter, far past any outage.
 */
export async function ensureAccountEventsStream(jsm: JetStreamManager, topology: JobsTopology, options: StreamOptions = {}): Promise<void> {
  await ensureStream(jsm, {
    name: topology.accountEventsStream,
    subjects: [topology.accountDeletedSubject],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    duplicate_window: nanos(options.duplicateWindowMs ?? 5 * 60_000),
    max_age: nanos(90 * DAY_MS),
    num_replicas: options.replicas ?? 1,
  });
}

/**
 * The product events stream, declared by each of its publishers (jobs, media, community). Kept a
 * week: the product team's bridge may be down over a long weekend and still miss nothing. The
 * duplicate window is the outboxes' (see ensureJobStreams).
 */
export async function ensureProductEventsStream(jsm: JetStreamManager, topology: JobsTopology, options: StreamOptions = {}): Promise<void> {
  await ensureStream(jsm, {
    name: topology.productEventsStream,
    subjects: [topology.allProductEventsSubject],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    duplicate_window: nanos(options.duplicateWindowMs ?? 5 * 60_000),
    max_age: nanos(PRODUCT_EVENTS_MAX_AGE_MS),
    num_replicas: options.replicas ?? 1,
  });
}

/**
 * The operators' events stream (a budget nearly spent, …), declared by its publisher (jobs): read
 * by alerting and chat-ops bridges, kept thirty days.
 */
export async function ensureOpsEventsStream(jsm: JetStreamManager, topology: JobsTopology, options: StreamOptions = {}): Promise<void> {
  await ensureStream(jsm, {
    name: topology.opsEventsStream,
    subjects: [topology.opsEventSubject('>')],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    duplicate_window: nanos(options.duplicateWindowMs ?? 5 * 60_000),
    max_age: nanos(30 * DAY_MS),
    num_replicas: options.replicas ?? 1,
  });
}

export interface WorkerConsumerOptions {
  /** How long a delivered message may go without ack or `working()` before redelivery. */
  ackWaitMs: number;
  maxDeliver: number;
  /** Messages delivered and not yet acked, across every worker sharing the consumer. */
  maxAckPending?: number;
}

/** Creates or updates the durable pull consumer of one dispatch queue. */
export function ensureWorkerConsumer(
  jsm: JetStreamManager,
  topology: JobsTopology,
  queue: JobQueueName,
  options: WorkerConsumerOptions,
): Promise<void> {
  return ensureJobsStreamConsumer(jsm, topology, topology.consumerName(queue), topology.dispatchSubject(queue), options);
}

/** Creates or updates the durable pull consumer workers share for a control task. */
export function ensureControlConsumer(
  jsm: JetStreamManager,
  topology: JobsTopology,
  task: ControlTask,
  options: WorkerConsumerOptions,
): Promise<void> {
  return ensureJobsStreamConsumer(jsm, topology, topology.controlConsumerName(task), topology.controlSubject(task), options);
}

async function ensureJobsStreamConsumer(
  jsm: JetStreamManager,
  topology: JobsTopology,
  name: string,
  subject: string,
  options: WorkerConsumerOptions,
): Promise<void> {
  const config = {
    durable_name: name,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subject: subject,
    ack_wait: nanos(options.ackWaitMs),
    max_deliver: options.maxDeliver,
    max_ack_pending: options.maxAckPending ?? 1000,
  };
  try {
    await jsm.consumers.info(topology.jobsStream, name);
    await jsm.consumers.update(topology.jobsStream, name, {
      ack_wait: config.ack_wait,
      max_deliver: config.max_deliver,
      max_ack_pending: config.max_ack_pending,
    });
  } catch (error) {
    if (!isNotFound(error)) throw error;
    await jsm.consumers.add(topology.jobsStream, config);
  }
}

export interface EventsConsumerOptions {
  /** Durable name, unique per subscribing service. */
  name: string;
  /**
   * One subject (wildcards allowed): eventSubject(type), or allEventsSubject. One only, since
   * several filter subjects need NATS 2.10; a consumer of a few types takes all and skips.
   */
  filterSubject: string;
  ackWaitMs: number;
  maxDeliver: number;
}

/**
 * Creates or updates a service's durable pull consumer on the lifecycle events stream. It starts
 * with the events published after its creation: a new subscriber owes nothing to older jobs.
 */
export async function ensureEventsConsumer(jsm: JetStreamManager, topology: JobsTopology, options: EventsConsumerOptions): Promise<void> {
  const tunable = { ack_wait: nanos(options.ackWaitMs), max_deliver: options.maxDeliver, filter_subject: options.filterSubject };
  try {
    await jsm.consumers.info(topology.eventsStream, options.name);
    await jsm.consumers.update(topology.eventsStream, options.name, tunable);
  } catch (error) {
    if (!isNotFound(error)) throw error;
    await jsm.consumers.add(topology.eventsStream, {
      durable_name: options.name,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.New,
      ...tunable,
    });
  }
}

/**
 * The durable consumer of account deletions of one service. From the stream's start (DeliverPolicy
 * All), unlike the lifecycle consumers: a service deployed, or its consumer declared, after a
 * deletion was requested still deletes its part. Redelivered until acked (each service's deletion
 * is idempotent), forever (max_deliver -1).
 */
export async function ensureAccountDeletionConsumer(
  jsm: JetStreamManager,
  topology: JobsTopology,
  options: { service: string; ackWaitMs: number },
): Promise<string> {
  const name = topology.accountDeletionConsumerName(options.service);
  const tunable = { ack_wait: nanos(options.ackWaitMs), max_deliver: -1, filter_subject: topology.accountDeletedSubject };
  try {
    await jsm.consumers.info(topology.accountEventsStream, name);
    await jsm.consumers.update(topology.accountEventsStream, name, tunable);
  } catch (error) {
    if (!isNotFound(error)) throw error;
    await jsm.consumers.add(topology.accountEventsStream, {
      durable_name: name,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ...tunable,
    });
  }
  return name;
}

/** Removes the streams (and so their consumers). For tests and for tearing an environment down. */
export async function deleteJobStreams(jsm: JetStreamManager, topology: JobsTopology): Promise<void> {
  for (const stream of [
    topology.jobsStream,
    topology.eventsStream,
    topology.accountEventsStream,
    topology.productEventsStream,
    topology.opsEventsStream,
  ]) {
    try {
      await jsm.streams.delete(stream);
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
}

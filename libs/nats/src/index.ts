/**
 * NATS JetStream for Atelier: the topology (streams, subjects, consumer names) declared in one
 * place, idempotent creation, and connections that survive server restarts.
 */
export { jobsTopology, JOB_QUEUES, CONTROL_TASKS, type JobsTopology, type JobQueueName, type ControlTask } from './topology.js';
export {
  ensureJobStreams,
  ensureWorkerConsumer,
  ensureControlConsumer,
  ensureEventsConsumer,
  ensureAccountDeletionConsumer,
  ensureAccountEventsStream,
  ensureProductEventsStream,
  ensureOpsEventsStream,
  PRODUCT_EVENTS_MAX_AGE_MS,
  deleteJobStreams,
  type StreamOptions,
  type WorkerConsumerOptions,
  type EventsConsumerOptions,
} from './streams.js';
export { connectNats } from './connect.js';
export {
  openNatsLink,
  openServiceNatsLink,
  NATS_HEALTH_SERVICE,
  type LinkHealth,
  type NatsLink,
  type NatsLinkOptions,
  type ServiceNatsLinkOptions,
} from './nats-link.js';
export { startDurablePull, NAK_DELAY_MS, type DurablePull, type DurablePullOptions } from './durable-pull.js';
export { LifecycleConsumer, type LifecycleConsumerOptions, type LifecycleOutcome } from './lifecycle-consumer.js';
export { natsConfigSpec, natsStreamsConfigSpec, checkNatsCredentials, type NatsCredentials } from './nats-config.js';
export { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager, type JsMsg, type PubAck } from '@nats-io/jetstream';
export { headers, type NatsConnection, type MsgHdrs } from '@nats-io/transport-node';
export {
  catalogChangesSubject,
  publishCatalogChange,
  parseCatalogChange,
  type CatalogChange,
  type CatalogEntryKind,
} from './catalog-changes.js';
export { WindowCounters, windowCountersBucket, type WindowCountersOptions, type Reservation } from './window-counters.js';

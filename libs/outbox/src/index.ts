/**
 * Transactional outboxes: the table's shape, writing rows inside the caller's transaction, and a
 * relay that publishes them to JetStream exactly once in the dedupe sense (Nats-Msg-Id = the row's
 * key). jobs' relay, whose rows also come handed over by its transitions, is built on the same
 * statements, loop (RelayCycles) and settlement (settlePublishes).
 * And the product events (creation_*) every service writes through its outbox, with the
 * pseudonymous user_ref that stands for the user in them.
 */
export { outboxTableSql, outboxChannel } from './outbox-table.js';
export {
  insertOutboxEvents,
  claimDueOutboxRows,
  releaseUnpublishedOutboxRows,
  markOutboxPublished,
  releaseStaleOutboxLocks,
  outboxBacklog,
  type OutboxBacklog,
  type OutboxEvent,
  type OutboxRow,
} from './outbox-sql.js';
export { OutboxRelay, type OutboxRelayOptions } from './outbox-relay.js';
export { RelayCycles, type RelayCyclesOptions, type RelayLogger } from './relay-cycles.js';
export { settlePublishes, type SettleOptions } from './settle-publishes.js';
export { productEventsRelay, startProductEventsRelay } from './product-events-relay.js';
export { registerOutboxMetrics, outboxGauges } from './outbox-metrics.js';
export { publishFailureOf, publishErrorText, STREAMS_TRUSTED_FOR_MS, OUTAGE_BACKOFF, type PublishFailure } from './publish-failure.js';
export {
  PRODUCT_EVENT_NAMES,
  ProductEvents,
  UserRefKey,
  productEventId,
  productEventIdSql,
  productEventsConfigSpec,
  productEventsOf,
  productEventSql,
  rfc3339Sql,
  userRefSql,
  type ProductEventName,
  type ProductEventFact,
  type ProductEventMessage,
  type ProductEventProps,
  type ProductEventSqlParts,
} from './product-events.js';

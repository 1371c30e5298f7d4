import { outboxEntity } from '@atelier/outbox/entity';

/** community.outbox: the product events the relay publishes to NATS, written in the transaction that made the fact. */
export const OutboxEntity = outboxEntity();

import { outboxEntity } from '@atelier/outbox/entity';

/**
 * jobs.outbox: what the relay publishes to NATS, written in the transaction that decided it; with
 * the trace context of the request that wrote it.
 */
export const OutboxEntity = outboxEntity({
  traceContext: true,
  // The stale-dispatch sweep: is a dispatch of this job pending or published lately?
  indexes: [{ name: 'outbox_dispatch_job_idx', properties: ['aggregateId'], where: `event_type = 'job.dispatch'` }],
});

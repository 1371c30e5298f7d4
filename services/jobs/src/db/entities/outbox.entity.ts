import { defineEntity, p } from '@atelier/orm';

/**
 * jobs.outbox: what the relay publishes to NATS, written in the transaction that decided it.
 * One partial index per status the relay and housekeeping look for.
 */
export const OutboxEntity = defineEntity({
  name: 'Outbox',
  tableName: 'outbox',
  properties: {
    id: p.bigint('string').primary().generated('identity'),
    aggregateId: p.uuid(),
    eventType: p.string().length(64),
    subject: p.string().length(255),
    dedupeKey: p.string().length(255).unique('outbox_dedupe_key_key'),
    payload: p.json<Record<string, unknown>>(),
    status: p.string().length(16).default('pending'),
    attemptCount: p.integer().default(0),
    availableAt: p.datetime().defaultRaw('now()'),
    lockedBy: p.string().length(220).nullable(),
    lockedAt: p.datetime().nullable(),
    lastError: p.string().length(1000).nullable(),
    createdAt: p.datetime().defaultRaw('now()'),
    publishedAt: p.datetime().nullable(),
    traceContext: p.json<Record<string, string>>().nullable(),
  },
  indexes: [
    { name: 'outbox_due_idx', properties: ['availableAt', 'id'], where: `status = 'pending'` },
    { name: 'outbox_processing_idx', properties: ['lockedAt'], where: `status = 'processing'` },
    { name: 'outbox_dead_idx', properties: ['id'], where: `status = 'dead'` },
    { name: 'outbox_published_idx', properties: ['publishedAt'], where: `status = 'published'` },
    // The stale-dispatch sweep: is a dispatch of this job pending or published lately?
    { name: 'outbox_dispatch_job_idx', properties: ['aggregateId'], where: `event_type = 'job.dispatch'` },
  ],
  checks: [
    { name: 'outbox_payload_object', expression: `jsonb_typeof(payload) = 'object'` },
    { name: 'outbox_status_known', expression: `status IN ('pending', 'processing', 'published', 'dead')` },
    { name: 'outbox_attempts_positive', expression: 'attempt_count >= 0' },
    {
      name: 'outbox_lock_while_processing',
      expression: `(status = 'processing') = (locked_by IS NOT NULL) AND (locked_by IS NULL) = (locked_at IS NULL)`,
    },
    { name: 'outbox_published_at', expression: `(status = 'published') = (published_at IS NOT NULL)` },
    {
      name: 'outbox_trace_context_shape',
      expression: `trace_context IS NULL OR (jsonb_typeof(trace_context) = 'object' AND octet_length(trace_context::text) <= 1024)`,
    },
  ],
});

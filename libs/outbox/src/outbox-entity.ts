/**
 * The MikroORM entity of a service's outbox table (outboxTableSql builds it), on an entry point of
 * its own (`@atelier/outbox/entity`): only migration runs and tests load the ORM, never a
 * service's process through the kit's main entry.
 */
import { defineEntity, p } from '@atelier/orm';

/** A property of the shared table an added index may cover. */
type OutboxProperty = 'id' | 'aggregateId' | 'eventType' | 'subject' | 'status' | 'availableAt' | 'lockedAt' | 'createdAt' | 'publishedAt';

/** What a service's outbox adds to the shared table: jobs' trace context and dispatch index. */
export interface OutboxEntityAdditions {
  traceContext?: boolean;
  indexes?: ReadonlyArray<{ name: string; properties: OutboxProperty[]; where: string }>;
}

/**
 * The table as an entity, a new one per call: each service's ORM discovers its own (MikroORM
 * writes its metadata into the schema it is given). One partial index per status the relay and
 * its housekeeping look for.
 */
export function outboxEntity(additions: OutboxEntityAdditions = {}) {
  return defineEntity({
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
      ...(additions.traceContext ? { traceContext: p.json<Record<string, string>>().nullable() } : {}),
    },
    indexes: [
      { name: 'outbox_due_idx', properties: ['availableAt', 'id'], where: `status = 'pending'` },
      { name: 'outbox_processing_idx', properties: ['lockedAt'], where: `status = 'processing'` },
      { name: 'outbox_dead_idx', properties: ['id'], where: `status = 'dead'` },
      { name: 'outbox_published_idx', properties: ['publishedAt'], where: `status = 'published'` },
      ...(additions.indexes ?? []),
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
      ...(additions.traceContext
        ? [
            {
              name: 'outbox_trace_context_shape',
              expression: `trace_context IS NULL OR (jsonb_typeof(trace_context) = 'object' AND octet_length(trace_context::text) <= 1024)`,
            },
          ]
        : []),
    ],
  });
}

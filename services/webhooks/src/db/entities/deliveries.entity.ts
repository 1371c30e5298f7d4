import { defineEntity, p } from '@atelier/orm';
import { EndpointEntity } from './endpoints.entity.js';

/** webhooks.deliveries: one event for one endpoint; its id is the webhook-id (0001-webhooks-baseline). */
export const DeliveryEntity = defineEntity({
  name: 'Delivery',
  tableName: 'deliveries',
  properties: {
    id: p.uuid().primary(),
    endpoint: p.manyToOne(EndpointEntity).fieldName('endpoint_id').deleteRule('cascade').foreignKeyName('deliveries_endpoint_id_fkey'),
    eventId: p.string().length(200),
    eventType: p.string().length(64),
    body: p.text(),
    status: p.string().length(16).default('pending'),
    attemptCount: p.integer().default(0),
    scheduleStep: p.integer().default(0),
    nextAttemptAt: p.datetime(3).nullable(),
    createdAt: p.datetime(3).defaultRaw('now()'),
    deliveredAt: p.datetime(3).nullable(),
  },
  uniques: [{ name: 'deliveries_endpoint_event_key', properties: ['endpoint', 'eventId'] }],
  indexes: [
    { name: 'deliveries_due_idx', properties: ['nextAttemptAt'], where: `status = 'pending'` },
    {
      name: 'deliveries_endpoint_created_idx',
      expression: 'CREATE INDEX deliveries_endpoint_created_idx ON webhooks.deliveries USING btree (endpoint_id, created_at DESC, id DESC)',
    },
  ],
  checks: [
    { name: 'deliveries_event_present', expression: `event_id <> ''` },
    { name: 'deliveries_status_known', expression: `status IN ('pending', 'delivered', 'failed')` },
    { name: 'deliveries_attempts_non_negative', expression: 'attempt_count >= 0' },
    { name: 'deliveries_step_non_negative', expression: 'schedule_step >= 0' },
    { name: 'deliveries_pending_due', expression: `(status = 'pending') = (next_attempt_at IS NOT NULL)` },
    { name: 'deliveries_delivered_at', expression: `(status = 'delivered') = (delivered_at IS NOT NULL)` },
  ],
});

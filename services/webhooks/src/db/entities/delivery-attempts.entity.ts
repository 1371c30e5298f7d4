import { defineEntity, p } from '@atelier/orm';
import { DeliveryEntity } from './deliveries.entity.js';

/** webhooks.delivery_attempts: every POST of a delivery, with what came back (status 0: no answer, see error). */
export const DeliveryAttemptEntity = defineEntity({
  name: 'DeliveryAttempt',
  tableName: 'delivery_attempts',
  properties: {
    delivery: p
      .manyToOne(DeliveryEntity)
      .primary()
      .fieldName('delivery_id')
      .deleteRule('cascade')
      .foreignKeyName('delivery_attempts_delivery_id_fkey'),
    attempt: p.integer().primary(),
    startedAt: p.datetime(3),
    durationMs: p.integer(),
    statusCode: p.integer().default(0),
    error: p.string().length(500).nullable(),
  },
  primaryKeys: ['delivery', 'attempt'],
  checks: [
    { name: 'delivery_attempts_attempt_positive', expression: 'attempt >= 1' },
    { name: 'delivery_attempts_duration_non_negative', expression: 'duration_ms >= 0' },
  ],
});

import { defineEntity, p } from '@atelier/orm';
import { MAX_USER_ID_LENGTH } from '@atelier/validation';

/** jobs.outbox_replays: one row per operator replay call and what it found, written in its transaction. */
export const OutboxReplayEntity = defineEntity({
  name: 'OutboxReplay',
  tableName: 'outbox_replays',
  properties: {
    id: p.bigint('string').primary().generated('identity'),
    outboxId: p.bigint('string'),
    operatorId: p.string().length(MAX_USER_ID_LENGTH),
    result: p.string().length(16),
    replayedAt: p.datetime().defaultRaw('now()'),
  },
  checks: [{ name: 'outbox_replays_result_known', expression: `result IN ('replayed', 'not_dead', 'not_found')` }],
});

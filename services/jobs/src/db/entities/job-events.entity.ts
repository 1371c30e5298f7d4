import { defineEntity, p } from '@atelier/orm';
import { GenerationJobEntity } from './generation-jobs.entity.js';

/** jobs.job_events: one row per transition of a job, written in the transition's transaction. */
export const JobEventEntity = defineEntity({
  name: 'JobEvent',
  tableName: 'job_events',
  properties: {
    id: p.bigint('string').primary().generated('identity'),
    job: p.manyToOne(GenerationJobEntity).fieldName('job_id').deleteRule('cascade').foreignKeyName('job_events_job_id_fkey'),
    fromStatus: p.string().length(16).nullable(),
    toStatus: p.string().length(16),
    attempt: p.smallint(),
    actor: p.string().length(220),
    errorClass: p.string().length(32).nullable(),
    errorCode: p.string().length(64).nullable(),
    detail: p.string().length(500).nullable(),
    occurredAt: p.datetime().defaultRaw('now()'),
  },
  indexes: [
    { name: 'job_events_job_idx', properties: ['job', 'id'] },
    { name: 'job_events_occurred_idx', properties: ['occurredAt'] },
  ],
});

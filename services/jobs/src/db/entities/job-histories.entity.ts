import { defineEntity, p } from '@atelier/orm';
import { GenerationJobEntity } from './generation-jobs.entity.js';

/**
 * jobs.job_histories: a terminal job's transitions once retention has pruned its job_events
 * ([from, to, attempt, error code, epoch ms] each), written in the statement that deletes them.
 */
export const JobHistoryEntity = defineEntity({
  name: 'JobHistory',
  tableName: 'job_histories',
  properties: {
    job: p
      .oneToOne(GenerationJobEntity)
      .owner()
      .primary()
      .fieldName('job_id')
      .deleteRule('cascade')
      .updateRule('no action')
      .foreignKeyName('job_histories_job_id_fkey'),
    history: p.json<unknown[]>(),
    archivedAt: p.datetime().defaultRaw('now()'),
  },
  checks: [{ name: 'job_histories_history_array', expression: `jsonb_typeof(history) = 'array'` }],
});

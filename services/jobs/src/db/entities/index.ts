import { GenerationJobEntity } from './generation-jobs.entity.js';
import { JobEventEntity } from './job-events.entity.js';
import { JobHistoryEntity } from './job-histories.entity.js';
import { OutboxEntity } from './outbox.entity.js';

export { GenerationJobEntity, JobEventEntity, JobHistoryEntity, OutboxEntity };

/** Every table of schema jobs, as MikroORM entities. */
export const jobsEntities = [GenerationJobEntity, JobEventEntity, OutboxEntity, JobHistoryEntity] as const;

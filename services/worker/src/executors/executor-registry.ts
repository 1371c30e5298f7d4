import { JOB_TYPES, type JobExecutorKind } from '@atelier/job-types';
import type { JobExecutor } from './job-executor.js';

/**
 * The executor of every shipped job type, by jobType, as @atelier/job-types assigns them. It
 * takes exactly one executor per kind (a missing or an unknown kind does not compile), so no job
 * type is left without one and no executor is kept for a type that is not shipped.
 */
export function executorsByJobType(executors: Readonly<Record<JobExecutorKind, JobExecutor>>): ReadonlyMap<string, JobExecutor> {
  return new Map(JOB_TYPES.map((type) => [type.jobType, executors[type.executor]]));
}
